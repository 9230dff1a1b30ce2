import type { Cluster, Redis } from "ioredis";
import { luaScript } from "../../lua/index.js";

/**
 * Which runs share a budget: the runs of one trace (a top-level run and its sub-agents, which
 * inherit its trace id) and the runs of one schedule on one UTC day. Membership only — the figures
 * are always summed from those runs' journals, so nothing here can count twice or drift.
 */
export interface UsageIndex {
  /** Records that the run belongs to its trace and (when scheduled) to its schedule's day. Idempotent. */
  join(entry: {
    traceId: string;
    runId: string;
    scheduleId?: string | undefined;
    day: string;
  }): Promise<void>;
  /** Run ids of a trace (the run tree). */
  traceRuns(traceId: string): Promise<string[]>;
  /** Run ids of a schedule on one UTC day (yyyy-mm-dd). */
  scheduleRuns(scheduleId: string, day: string): Promise<string[]>;
}

/** SADD a member and refresh the set's expiry, atomically. */
const JOIN_SET = luaScript(import.meta.url, "usageJoin-1.lua").lua;

/** The index in Redis: two sets per trace / schedule-day, expiring with the journals they point to. */
export function redisUsageIndex(redis: Redis | Cluster, keyPrefix: string, retentionMs: number): UsageIndex {
  const traceKey = (traceId: string) => `${keyPrefix}:{trace:${traceId}}:runs`;
  const dayKey = (scheduleId: string, day: string) => `${keyPrefix}:{sched:${scheduleId}}:runs:${day}`;
  return {
    async join({ traceId, runId, scheduleId, day }) {
      // One script, not MULTI: a script refused while Redis is out of memory is sent again by a
      // worker's outage rider, a transaction is not (its commands' order is the client's).
      await redis.eval(JOIN_SET, 1, traceKey(traceId), runId, String(retentionMs));
      if (scheduleId) await redis.eval(JOIN_SET, 1, dayKey(scheduleId, day), runId, String(retentionMs));
    },
    traceRuns: (traceId) => redis.smembers(traceKey(traceId)),
    scheduleRuns: (scheduleId, day) => redis.smembers(dayKey(scheduleId, day)),
  };
}
