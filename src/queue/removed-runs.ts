import { type AgentEventWatch, watchAgentEvents } from "./agent-event-watch.js";
import type { RedisConnection } from "./redis-connection.js";

/** A started watch; `ready` resolves once it listens (removals before then are not seen). */
export type RemovedRunsWatch = AgentEventWatch;

/**
 * Calls `onRemoved` with the run id of every job removed from the agent queue (a run cancelled by an
 * operator), in whichever process it was removed. Listens on a connection of its own.
 */
export function watchRemovedRuns(
  connection: RedisConnection,
  keyPrefix: string,
  onRemoved: (runId: string) => void,
): RemovedRunsWatch {
  return watchAgentEvents(connection, keyPrefix, "removed", onRemoved);
}
