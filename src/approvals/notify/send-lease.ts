/**
 * Where a send lease lives: the approval store (one lease per request) or the alert outbox (one per
 * alert group). `claimSendLease` answers the new holder's owner token, or null while one is held.
 */
export interface SendLeaseStore {
  claimSendLease(id: string, leaseMs: number): Promise<string | null>;
  renewSendLease(id: string, owner: string, leaseMs: number): Promise<boolean>;
  releaseSendLease(id: string, owner: string): Promise<void>;
}

/** Default send lease: longer than one SMTP try (15 s timeouts), renewed every third of it. */
export const DEFAULT_SEND_LEASE_MS = 30_000;

/**
 * A held claim on mailing one request. Inline `notify` and every process's sweep claim it before
 * they issue links or send, so one request is mailed by one sender at a time (a second sender would
 * replace the first link). A heartbeat keeps it while a slow send retries; when the heartbeat finds
 * it gone (this process stalled past the lease, or Redis did not answer) the holder stops before
 * its next token or try instead of racing the new holder.
 */
export class SendLease {
  readonly #store: SendLeaseStore;
  readonly #id: string;
  readonly #owner: string;
  readonly #leaseMs: number;
  readonly #timer: NodeJS.Timeout;
  #lost = false;

  private constructor(store: SendLeaseStore, id: string, owner: string, leaseMs: number) {
    this.#store = store;
    this.#id = id;
    this.#owner = owner;
    this.#leaseMs = leaseMs;
    this.#timer = setInterval(() => void this.#renew(), Math.max(1, Math.floor(leaseMs / 3)));
    this.#timer.unref();
  }

  /** Claims `id`'s send lease (a request's, an alert group's), or null while another sender holds it. */
  static async claim(store: SendLeaseStore, id: string, leaseMs: number): Promise<SendLease | null> {
    const owner = await store.claimSendLease(id, leaseMs);
    return owner === null ? null : new SendLease(store, id, owner, leaseMs);
  }

  /** False once the lease may belong to someone else: send nothing more. */
  get held(): boolean {
    return !this.#lost;
  }

  /** Stops the heartbeat and gives the lease back (a failed release just lets it expire). */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#lost) return;
    this.#lost = true;
    await this.#store.releaseSendLease(this.#id, this.#owner).catch(() => undefined);
  }

  async #renew(): Promise<void> {
    if (this.#lost) return;
    const kept = await this.#store.renewSendLease(this.#id, this.#owner, this.#leaseMs).catch(() => false);
    if (!kept) {
      this.#lost = true;
      clearInterval(this.#timer);
    }
  }
}
