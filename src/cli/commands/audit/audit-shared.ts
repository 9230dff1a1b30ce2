import type { Cluster, Redis } from "ioredis";
import { type AuditRecord, auditKeys, decodeAuditFields, GENESIS_HASH } from "../../../journal/index.js";
import type { CliIo } from "../../io.js";
import { connectCliRedis } from "../shared/index.js";

/** A Redis connection and the audit trail's key prefix for one CLI command; `close()` disconnects. */
export interface CliAudit {
  redis: Redis | Cluster;
  keyPrefix: string;
  close(): Promise<void>;
}

/** Loads the config and connects to Redis (REDIS_URL wins over `redis.url`). */
export async function openAudit(io: CliIo, configPath: string | undefined): Promise<CliAudit> {
  const { loaded, redis, close } = await connectCliRedis(io, configPath);
  return { redis, keyPrefix: loaded.config.redis.key_prefix, close };
}

/** A stream entry as listed: decoded, or the reason it does not decode (evidence is never hidden). */
export type ListedEntry = { ok: true; record: AuditRecord } | { ok: false; id: string; problem: string };

/**
 * The newest `limit` entries of the whole trail, oldest first, in one XREVRANGE. Entries that do not
 * decode are returned with their problem rather than dropped, so a listing shows where the damage is.
 * One entry more is read: its hash is the `prev` of the oldest listed one, if that is stored without.
 */
export async function readRecentEntries(
  redis: Redis | Cluster,
  keyPrefix: string,
  limit: number,
): Promise<ListedEntry[]> {
  const rows = (await redis.xrevrange(auditKeys(keyPrefix).stream, "+", "-", "COUNT", limit + 1)) as [
    string,
    string[],
  ][];
  rows.reverse();
  const hashOf = (row: [string, string[]] | undefined): string => {
    if (row === undefined) return GENESIS_HASH;
    for (let f = 0; f + 1 < row[1].length; f += 2) if (row[1][f] === "hash") return row[1][f + 1]!;
    return "";
  };
  const listed = rows.map(([id, fields], i) => decodeListed(id, fields, hashOf(rows[i - 1])));
  return rows.length > limit ? listed.slice(1) : listed;
}

function decodeListed(id: string, fields: readonly string[], before: string): ListedEntry {
  const decoded = decodeAuditFields(id, fields, before);
  return decoded.ok ? { ok: true, record: decoded.record } : { ok: false, id, problem: decoded.problem };
}

/** Milliseconds since the epoch as ISO-8601 UTC, to the millisecond (entries often share a second). */
export function formatAuditTime(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * One readable line per entry: time, seq, kind, tool, verdict or outcome, step, reason, approver,
 * and the trace (entries of many runs interleave in the whole-trail listing).
 */
export function auditLine(record: AuditRecord): string {
  const e = record.entry;
  if (e.kind === "operator") {
    return [
      formatAuditTime(e.at),
      `#${e.seq}`,
      e.kind.padEnd(9),
      `jobs ${e.action}`.padEnd(16),
      `run ${e.executionId}`,
      e.reason !== "" ? JSON.stringify(oneLine(e.reason)) : "",
      `by ${e.by} via ${e.via}`,
      `trace ${e.traceId}`,
    ]
      .filter((part) => part !== "")
      .join("  ");
  }
  const result = e.kind === "decision" ? e.verdict : `${e.outcome}${e.isReplay ? " (replay)" : ""}`;
  const approver =
    e.approver !== undefined
      ? `approver ${e.approver}`
      : e.approvalSource !== undefined
        ? `approval ${e.approvalSource}`
        : "";
  return [
    formatAuditTime(e.at),
    `#${e.seq}`,
    e.kind.padEnd(9),
    e.tool.padEnd(16),
    result.padEnd(9),
    e.step !== undefined ? `step ${e.step}` : "",
    e.kind === "execution" ? `${e.durationMs}ms` : "",
    e.reason !== undefined && e.reason !== "" ? JSON.stringify(oneLine(e.reason)) : "",
    approver,
    `trace ${e.traceId}`,
  ]
    .filter(Boolean)
    .join("  ");
}

function oneLine(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return first.length > 200 ? `${first.slice(0, 200)}…` : first;
}
