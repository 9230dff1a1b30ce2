/** Time, injected. Pure code never reads the wall clock; tests control it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to, for expiry, cron and DST tests. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = 0) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  set(ms: number): void {
    this.#now = ms;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}
