import type { AgentQueue } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";

/** What {@link reclaimRunsOf} did. */
export interface ReclaimReport {
  /** Runs moved from active back to wait: their lock was a gone worker's. */
  readonly reclaimed: readonly string[];
}

/**
 * Moves every active job whose lock token is one of `goneWorkerIds`' (BullMQ tokens are
 * `<worker id>:<n>`) back to wait at once, instead of after the lock lapses (30 s) and a stall check
 * sees it (up to 30 s more). Each move is BullMQ's own `moveToWait(token)`, which compares the lock
 * with that token inside its script: a job another worker has taken meanwhile (another token) or
 * whose lock lapsed (BullMQ's stall check then moves it) is left alone, so a job a live worker holds
 * is never touched. Replaying the run is safe because of the journal (a half-done call is in doubt).
 * `beforeMove` runs for each such job first, while the gone lock still keeps every worker off it
 * (the agent worker ends the leases of the run's open journal claims there, so the replay finds
 * the dead worker's half-done call in doubt at once instead of held for up to the claim lease).
 */
export async function reclaimRunsOf(
  redis: RedisConnection,
  queue: AgentQueue,
  goneWorkerIds: readonly string[],
  beforeMove?: (runId: string) => Promise<unknown>,
): Promise<ReclaimReport> {
  if (goneWorkerIds.length === 0) return { reclaimed: [] };
  const ids = await redis.lrange(queue.keys.active as string, 0, -1);
  const reclaimed: string[] = [];
  for (const id of ids) {
    const token = await redis.get(`${queue.toKey(id)}:lock`);
    if (token === null) continue;
    const holder = token.slice(0, token.lastIndexOf(":"));
    if (!goneWorkerIds.includes(holder)) continue;
    const job = await queue.getJob(id);
    if (!job) continue;
    try {
      // While the job is still active under the gone worker's lock, so nobody has picked it up yet.
      await beforeMove?.(id);
      await job.moveToWait(token);
      reclaimed.push(id);
    } catch {
      // The lock changed between the read and the move (taken, finished, lapsed): not ours to move.
    }
  }
  return { reclaimed };
}
