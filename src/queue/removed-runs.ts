import { type AgentQueueEvents, newestAgentEventId, openAgentQueueEvents } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";

/** A started watch; `ready` resolves once it listens (removals before then are not seen). */
export interface RemovedRunsWatch {
  ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Calls `onRemoved` with the run id of every job removed from the agent queue (a run cancelled by an
 * operator), in whichever process it was removed. Listens on a connection of its own.
 *
 * The events start after the stream's newest entry read first, not at their first XREAD (`$`): that
 * read may come well after `ready` on a busy process, and a removal in between would never be seen.
 */
export function watchRemovedRuns(
  connection: RedisConnection,
  keyPrefix: string,
  onRemoved: (runId: string) => void,
): RemovedRunsWatch {
  let stopped = false;
  const opened: Promise<AgentQueueEvents | undefined> = newestAgentEventId(connection, keyPrefix).then(
    async (lastEventId) => {
      if (stopped) return undefined;
      const own = connection.duplicate();
      own.on("error", () => undefined); // reported by the main connection's handler
      const events = openAgentQueueEvents(own, keyPrefix, { lastEventId });
      events.on("removed", ({ jobId }) => onRemoved(jobId));
      // Never started: closed here (with the connection it was given), as `stop` cannot reach it.
      await events.waitUntilReady().catch(async (err: unknown) => {
        await events.close().catch(() => undefined);
        throw err;
      });
      return events;
    },
  );
  return {
    ready: opened.then(() => undefined),
    async stop() {
      stopped = true;
      const events = await opened.catch(() => undefined);
      await events?.close();
    },
  };
}
