import { openAgentQueueEvents } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";

/** A started watch; `ready` resolves once it listens (removals before then are not seen). */
export interface RemovedRunsWatch {
  ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Calls `onRemoved` with the run id of every job removed from the agent queue (a run cancelled by an
 * operator), in whichever process it was removed. Listens on a connection of its own.
 */
export function watchRemovedRuns(
  connection: RedisConnection,
  keyPrefix: string,
  onRemoved: (runId: string) => void,
): RemovedRunsWatch {
  const own = connection.duplicate();
  own.on("error", () => undefined); // reported by the main connection's handler
  const events = openAgentQueueEvents(own, keyPrefix);
  events.on("removed", ({ jobId }) => onRemoved(jobId));
  return {
    ready: events.waitUntilReady().then(() => undefined),
    async stop() {
      await events.close();
    },
  };
}
