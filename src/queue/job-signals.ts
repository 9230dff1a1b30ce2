import { DelayedError, UnrecoverableError } from "bullmq";
import type { RunJob } from "./queues.js";

/** How soon a run whose wait ended while it was parking is woken, ms. */
const SELF_WAKE_MS = 100;

/** Where a parked run waits until, and how to tell whether what it waits for has come meanwhile. */
export interface JobPark {
  /** Epoch ms at which the job wakes on its own (its timeout or re-check). */
  readonly wakeAt: number;
  /** Whether what it waits for came while it was parking (a wake-up then finds no delayed job). */
  readonly ready?: (() => Promise<boolean>) | undefined;
}

/**
 * Parks a started job: moves it to delayed until `park.wakeAt` (no worker slot held) and returns the
 * error the processor must throw so BullMQ leaves it there (`throw await parkJob(…)`). The job
 * replays from its journal when it wakes.
 */
export async function parkJob(job: RunJob, token: string | undefined, park: JobPark): Promise<Error> {
  await job.moveToDelayed(park.wakeAt, token);
  if (park.ready && (await park.ready().catch(() => false))) {
    // What it waits for came while it was parking (its wake-up found no delayed job): wake it
    // now. Re-delayed by a moment rather than promoted, so the job cannot start on another slot
    // of this worker before BullMQ has finished releasing it here (that would drop the new
    // run's lock renewal). Not delayed any more (woken meanwhile): nothing to do.
    await job.changeDelay(SELF_WAKE_MS).catch(() => undefined);
  }
  return new DelayedError();
}

/** The error a processor throws to fail its job for good: no retries, whatever attempts are left. */
export function failForGood(message: string): Error {
  return new UnrecoverableError(message);
}
