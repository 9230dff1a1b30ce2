import { type AgentQueueEvents, newestAgentEventId, openAgentQueueEvents } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";

/** A started watch; `ready` resolves once it listens (events before then are not seen). */
export interface AgentEventWatch {
  ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Calls `onJob` with the job id of every `event` on the agent queue's event stream, from whichever
 * process it came. Listens on a connection of its own.
 *
 * The events start after the stream's newest entry read first, not at their first XREAD (`$`): that
 * read may come well after `ready` on a busy process, and an event in between would never be seen.
 */
export function watchAgentEvents(
  connection: RedisConnection,
  keyPrefix: string,
  event: string,
  onJob: (jobId: string) => void,
): AgentEventWatch {
  let stopped = false;
  const opened: Promise<AgentQueueEvents | undefined> = newestAgentEventId(connection, keyPrefix).then(
    async (lastEventId) => {
      if (stopped) return undefined;
      const own = connection.duplicate();
      own.on("error", () => undefined); // reported by the main connection's handler
      const events = openAgentQueueEvents(own, keyPrefix, { lastEventId });
      // BullMQ types only its own events; a custom one (published with `publishEvent`) is the same shape.
      const listen = events as unknown as {
        on(name: string, listener: (args: { jobId?: unknown }) => void): void;
      };
      listen.on(event, ({ jobId }) => {
        if (typeof jobId === "string") onJob(jobId);
      });
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
