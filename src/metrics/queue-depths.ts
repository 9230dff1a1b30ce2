import type { Cluster, Redis } from "ioredis";
import type { AgentQueue } from "../queue/index.js";
import type { QueueStateLabel } from "./families.js";
import type { MetricsKeys } from "./keys.js";

/** A parked-set member whose wake-up is this far past is stale (its job was removed while parked). */
const STALE_PARKED_MS = 24 * 3600 * 1000;

/**
 * Jobs of `queue` per state, read now. `parked` is the part of BullMQ's delayed set the worker
 * marked as parked (waiting for a person, a child run or a claim); `delayed` is the rest (retry
 * backoff, start jitter). Drops parked marks of jobs removed long ago.
 */
export async function queueDepths(
  redis: Redis | Cluster,
  keys: MetricsKeys,
  queue: AgentQueue,
  now: number,
): Promise<Record<QueueStateLabel, number>> {
  const parkedKey = keys.parked(queue.name);
  await redis.zremrangebyscore(parkedKey, "-inf", `(${now - STALE_PARKED_MS}`);
  const [counts, parked] = await Promise.all([
    queue.getJobCounts("waiting", "prioritized", "active", "delayed", "failed"),
    redis.zintercard(2, parkedKey, queue.toKey("delayed")),
  ]);
  return {
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    active: counts.active ?? 0,
    delayed: Math.max(0, (counts.delayed ?? 0) - Number(parked)),
    parked: Number(parked),
    failed: counts.failed ?? 0,
  };
}
