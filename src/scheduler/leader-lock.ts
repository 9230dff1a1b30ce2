import type { ScheduleStore } from "./schedule-store.js";

/** What {@link LeaderLock.ensure} found. */
export interface LeadershipState {
  /** This process holds the lock now. */
  held: boolean;
  /** It did not hold it before this call (reconcile config before firing). */
  acquired: boolean;
  /** It held it before this call and lost it (another process took over after the lease lapsed). */
  lost: boolean;
}

/**
 * The scheduler's leader lock: one Redis key holding a random token, with a lease (PX) renewed by
 * compare-and-PEXPIRE. The lease runs on Redis's clock, so a paused or partitioned holder loses it
 * without anyone's cooperation; the tick claims keep a late firing by a former holder harmless.
 */
export class LeaderLock {
  readonly #store: ScheduleStore;
  readonly #token: string;
  readonly #leaseMs: number;
  #held = false;

  constructor(store: ScheduleStore, token: string, leaseMs: number) {
    this.#store = store;
    this.#token = token;
    this.#leaseMs = leaseMs;
  }

  get held(): boolean {
    return this.#held;
  }

  /** Renews the lock if held, else tries to take it. */
  async ensure(): Promise<LeadershipState> {
    const key = this.#store.keys.lock;
    if (this.#held) {
      const renewed = await this.#store.script("schedLockRenew", key, this.#token, this.#leaseMs);
      if (renewed === 1) return { held: true, acquired: false, lost: false };
      this.#held = false;
      const again = await this.#tryAcquire();
      return { held: again, acquired: again, lost: !again };
    }
    const acquired = await this.#tryAcquire();
    return { held: acquired, acquired, lost: false };
  }

  /** Gives the lock up (clean shutdown), so another process takes over without waiting a lease. */
  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    await this.#store.script("schedLockRelease", this.#store.keys.lock, this.#token);
  }

  async #tryAcquire(): Promise<boolean> {
    const ok = await this.#store.redis.set(this.#store.keys.lock, this.#token, "PX", this.#leaseMs, "NX");
    this.#held = ok === "OK";
    return this.#held;
  }
}
