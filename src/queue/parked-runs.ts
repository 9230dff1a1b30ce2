import { QueueKeys } from "bullmq";
import { AGENT_QUEUE, bullPrefix } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";

/** A delayed run's job: its id and when it last started (BullMQ's `processedOn`, ms; 0 if never). */
export interface ParkedRun {
  readonly runId: string;
  readonly startedAt: number;
}

/**
 * Every delayed job of the agent queue (parked runs), a batch at a time. ZSCAN returns each job
 * that stays delayed throughout at least once, whatever is promoted or parked meanwhile (paging by
 * rank would skip one when another leaves the set); a job may come twice, which costs one more look.
 */
export async function* parkedRuns(
  connection: RedisConnection,
  keyPrefix: string,
  batch = 200,
): AsyncGenerator<ParkedRun[]> {
  const keys = new QueueKeys(bullPrefix(keyPrefix));
  const delayed = keys.toKey(AGENT_QUEUE, "delayed");
  let cursor = "0";
  do {
    const [next, flat] = await connection.zscan(delayed, cursor, "COUNT", batch);
    cursor = next;
    const ids = flat.filter((_, i) => i % 2 === 0);
    if (ids.length === 0) continue;
    const started = await Promise.all(
      ids.map((id) => connection.hget(keys.toKey(AGENT_QUEUE, id), "processedOn")),
    );
    yield ids.map((runId, i) => ({ runId, startedAt: Number(started[i] ?? 0) || 0 }));
  } while (cursor !== "0");
}
