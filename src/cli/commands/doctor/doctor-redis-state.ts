import { describeRedisOutage } from "../../../shared/index.js";
import { type DoctorCheck, fail, ok, warn } from "./doctor-check.js";

/** Used memory at or above this share of `maxmemory` is warned about. */
export const MEMORY_WARN_SHARE = 0.8;

const MB = 1024 * 1024;

function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(1)} MB`;
}

/**
 * Memory against `maxmemory` (INFO memory): near the limit a warning, at it the OOM condition by
 * name (Redis refuses writes; runs wait it out for `execution.redis_outage_seconds`).
 */
export function memoryUse(info: ReadonlyMap<string, string>, outageSeconds: number): DoctorCheck {
  const used = Number(info.get("used_memory") ?? "0");
  const max = Number(info.get("maxmemory") ?? "0");
  const name = "redis.memory.used";
  if (!(max > 0)) return ok(name, `${mb(used)} used, no maxmemory limit`);
  const share = used / max;
  const percent = Math.round(share * 100);
  const fix = describeRedisOutage("oom").fix;
  if (share >= 1) {
    return warn(
      name,
      `Redis is out of memory: ${mb(used)} used of maxmemory ${mb(max)} (${percent} %); it refuses writes (OOM), and runs wait up to ${outageSeconds} s (execution.redis_outage_seconds) before their attempts fail`,
      fix,
    );
  }
  if (share >= MEMORY_WARN_SHARE) {
    return warn(
      name,
      `${mb(used)} used of maxmemory ${mb(max)} (${percent} %): at the limit Redis refuses writes (OOM)`,
      fix,
    );
  }
  return ok(name, `${mb(used)} used of maxmemory ${mb(max)} (${percent} %)`);
}

/**
 * Whether Redis takes writes now (INFO persistence and replication): a failed AOF write or RDB save
 * (MISCONF: disk full or not writable), a dataset still loading, a read-only replica. Each is named
 * with the fix that fits; undefined when nothing stops writes.
 */
export function writeRefusal(info: ReadonlyMap<string, string>): DoctorCheck | undefined {
  const name = "redis.writes";
  if (info.get("loading") === "1") {
    const eta = info.get("loading_eta_seconds");
    return warn(
      name,
      `${describeRedisOutage("loading").what}${eta ? `, about ${eta} s to go` : ""}`,
      describeRedisOutage("loading").fix,
    );
  }
  if (info.get("aof_enabled") === "1" && info.get("aof_last_write_status") === "err") {
    return fail(
      name,
      "Redis could not write its AOF (aof_last_write_status: err): it refuses writes (MISCONF) until a write to disk succeeds",
      describeRedisOutage("misconf").fix,
    );
  }
  if (info.get("rdb_last_bgsave_status") === "err") {
    return fail(
      name,
      "Redis's last RDB snapshot failed (rdb_last_bgsave_status: err): with save points and stop-writes-on-bgsave-error yes it refuses writes (MISCONF)",
      `${describeRedisOutage("misconf").fix}, then \`BGSAVE\``,
    );
  }
  if (info.get("role") === "slave") {
    return fail(name, describeRedisOutage("readonly").what, describeRedisOutage("readonly").fix);
  }
  return undefined;
}
