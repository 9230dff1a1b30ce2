import type { Cluster, Redis } from "ioredis";
import type { ApprovalStatus } from "./record.js";

/** A request that became final (approved, denied, expired, cancelled), from the events stream. */
export interface DecisionEvent {
  /** Stream entry id: pass the last one seen to `ApprovalStore.readEvents` to go on. */
  streamId: string;
  id: string;
  status: ApprovalStatus;
  runId: string;
  jobId: string;
}

/** Reads the events stream after `afterStreamId` (XREAD, optionally blocking). */
export async function readDecisionEvents(
  redis: Redis | Cluster,
  key: string,
  afterStreamId: string,
  options: { count?: number; blockMs?: number },
): Promise<DecisionEvent[]> {
  const count = options.count ?? 100;
  const reply = (
    options.blockMs === undefined
      ? await redis.xread("COUNT", count, "STREAMS", key, afterStreamId)
      : await redis.xread("COUNT", count, "BLOCK", options.blockMs, "STREAMS", key, afterStreamId)
  ) as [string, [string, string[]][]][] | null;
  const entries = reply?.[0]?.[1] ?? [];
  return entries.map(([streamId, flat]) => {
    const fields = new Map<string, string>();
    for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
    return {
      streamId,
      id: fields.get("id") ?? "",
      status: (fields.get("status") ?? "") as ApprovalStatus,
      runId: fields.get("runId") ?? "",
      jobId: fields.get("jobId") ?? "",
    };
  });
}
