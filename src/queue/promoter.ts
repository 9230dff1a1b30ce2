import { openAgentQueue } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";
import { wakeRun } from "./wake.js";

/** An event that ends a parked run's wait (an approval decided): the stream entry and the job to wake. */
export interface WakeEvent {
  readonly streamId: string;
  readonly jobId: string;
}

/** Options for {@link startPromoter}. */
export interface PromoterOptions {
  connection: RedisConnection;
  keyPrefix: string;
  /** The events after stream id `after` ("$": only new ones), blocking up to `blockMs` for one. */
  readEvents: (after: string, blockMs: number) => Promise<readonly WakeEvent[]>;
  /** Unblocks a read in progress on stop (disconnects the reader's own connection). */
  interrupt: () => void;
  /** A read (or a job lookup) failed; the loop retries after half a second. */
  onReadFailed: (err: Error) => void;
}

/** A started promoter; stop() waits for its loop to end. */
export interface Promoter {
  stop(): Promise<void>;
}

/**
 * Wakes parked runs as soon as the events they wait for arrive, whichever process wrote them (an
 * approval decided on the page, the API, the CLI, or by expiry).
 */
export function startPromoter(options: PromoterOptions): Promoter {
  const queue = openAgentQueue(options.connection, options.keyPrefix);
  let running = true;
  const loop = (async () => {
    let last = "$";
    while (running) {
      try {
        const events = await options.readEvents(last, 2000);
        for (const event of events) {
          last = event.streamId;
          await wakeRun(queue, event.jobId);
        }
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
