import { parkedRuns } from "./parked-runs.js";
import { openAgentQueue } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";
import { wakeRun } from "./wake.js";

/** An event that ends a parked run's wait (an approval decided): the stream entry and the job to wake. */
export interface WakeEvent {
  readonly streamId: string;
  readonly jobId: string;
}

/**
 * A decision counts as unread by a run that started less than this before it (ms): the decision's
 * time comes from the deciding process's clock and the start from the worker's, so clocks a minute
 * apart still wake the run (one wake too many only replays the run to its parked call).
 */
export const CLOCK_SKEW_MARGIN_MS = 60_000;

/** Options for {@link startPromoter}. */
export interface PromoterOptions {
  connection: RedisConnection;
  keyPrefix: string;
  /** The events after stream id `after`, blocking up to `blockMs` for one. */
  readEvents: (after: string, blockMs: number) => Promise<readonly WakeEvent[]>;
  /**
   * The stored position the promoter resumes from (shared by every process) and how it moves: read
   * once at start, saved after each batch of events whose runs were woken.
   */
  position: {
    load: () => Promise<string>;
    save: (streamId: string) => Promise<void>;
  };
  /**
   * Of these parked runs, the ids of those with a decision made after `since` (ms): asked at start
   * for every delayed job, so decisions the stream no longer holds (trimmed, position lost) still wake
   * their runs.
   */
  decidedSince: (runs: readonly { runId: string; since: number }[]) => Promise<readonly string[]>;
  /** Unblocks a read in progress on stop (disconnects the reader's own connection). */
  interrupt: () => void;
  /** A read (or a job lookup) failed; the loop retries after half a second. */
  onReadFailed: (err: Error) => void;
  /** The start scan is done: how many parked runs it woke. */
  onScanned?: (woken: number) => void;
}

/** A started promoter; stop() waits for its loop to end. */
export interface Promoter {
  stop(): Promise<void>;
}

/**
 * Wakes parked runs as soon as the events they wait for arrive, whichever process wrote them (an
 * approval decided on the page, the API, the CLI, or by expiry). A decision is a durable fact: the
 * promoter reads on from the position the last promoter saved, not from "now", and at start wakes
 * every parked run with a decision made since it last started, so a decision made while no worker
 * ran resumes its run when one starts.
 */
export function startPromoter(options: PromoterOptions): Promoter {
  const queue = openAgentQueue(options.connection, options.keyPrefix);
  let running = true;
  const scan = async (): Promise<number> => {
    let woken = 0;
    for await (const batch of parkedRuns(options.connection, options.keyPrefix)) {
      if (!running) break;
      const ids = await options.decidedSince(
        batch.map((run) => ({ runId: run.runId, since: run.startedAt - CLOCK_SKEW_MARGIN_MS })),
      );
      for (const id of ids) await wakeRun(queue, id);
      woken += ids.length;
    }
    return woken;
  };
  const loop = (async () => {
    // The position is read before the scan: a decision after the read is on the stream after it,
    // one before it is final when the scan looks at its run.
    let last: string | undefined;
    while (running) {
      try {
        if (last === undefined) {
          const start = await options.position.load();
          // Saved at once: a decision made after this promoter stops is then read by the next.
          await options.position.save(start);
          options.onScanned?.(await scan());
          last = start;
        }
        const events = await options.readEvents(last, 2000);
        for (const event of events) {
          await wakeRun(queue, event.jobId);
          // Moved on only once woken: a failed wake is read again after the pause.
          last = event.streamId;
        }
        if (events.length > 0) await options.position.save(last);
      } catch (err) {
        if (running) options.onReadFailed(err as Error);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
  return {
    async stop() {
      running = false;
      options.interrupt();
      await queue.close();
      await loop.catch(() => undefined);
    },
  };
}
