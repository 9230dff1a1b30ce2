/**
 * Thrown inside a run when it must wait without holding a worker: for a person's decision, or for
 * another worker's live claim to lapse. The worker boundary turns it into BullMQ's moveToDelayed +
 * DelayedError; the job replays from its journal when it wakes.
 */
export class ParkSignal extends Error {
  constructor(
    /** When to wake up (ms since the epoch). */
    readonly wakeAt: number,
    readonly why: string,
  ) {
    super(`run parked until ${new Date(wakeAt).toISOString()}: ${why}`);
    this.name = new.target.name;
  }
}
