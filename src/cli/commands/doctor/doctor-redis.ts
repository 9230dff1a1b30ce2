import { Redis } from "ioredis";
import { maskUrlCredentials } from "../../../config/index.js";
import { COMPACT_HASH_FIX, COMPACT_HASH_VALUE, hashListpackValue } from "../../../queue/index.js";
import { crashLoss } from "../../../runtime/index.js";
import { describeRedisOutage, redisOutageOf } from "../../../shared/index.js";
import { type DoctorCheck, fail, ok, warn } from "./doctor-check.js";
import { memoryUse, writeRefusal } from "./doctor-redis-state.js";

/** BullMQ refuses older servers and warns below the recommended version. */
const BULLMQ_MINIMUM = "5.0.0";
const BULLMQ_RECOMMENDED = "6.2.0";

/** Options of {@link checkRedis}. */
export interface RedisCheckOptions {
  url: string;
  /** Where the URL came from, for the fix text ("REDIS_URL" or "redis.url"). */
  source: string;
  /** Connect timeout, ms. */
  timeoutMs: number;
  /** `execution.redis_outage_seconds`, for what a refusing Redis means to runs. Default 600. */
  outageSeconds?: number;
}

/** `a.b.c` compared numerically: negative when `a` is older than `b`. */
function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** `key:value` lines of an INFO reply. */
function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(":");
    if (i > 0 && !line.startsWith("#")) fields.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return fields;
}

/** CONFIG GET of one parameter, or undefined where CONFIG is disabled (managed Redis). */
async function configGet(redis: Redis, name: string): Promise<string | undefined> {
  try {
    const reply = (await redis.call("CONFIG", "GET", name)) as string[];
    return reply[1];
  } catch {
    return undefined;
  }
}

/**
 * Redis as the runner needs it (docs/DESIGN.md §10): reachable, a version BullMQ supports, persistent
 * (AOF; `appendfsync always`, else a warning) and never evicting keys. Reads INFO, which managed services allow,
 * and CONFIG GET only where it is allowed.
 */
export async function checkRedis(options: RedisCheckOptions): Promise<DoctorCheck[]> {
  const shown = maskUrlCredentials(options.url);
  const redis = new Redis(options.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: options.timeoutMs,
    enableOfflineQueue: false,
  });
  redis.on("error", () => undefined);
  try {
    // A refusal (MISCONF refuses even PING, LOADING refuses everything) means Redis is there:
    // it is named with its fix, and the checks that INFO allows still run.
    let refused: DoctorCheck | undefined;
    try {
      await redis.connect();
      await redis.ping();
    } catch (err) {
      const condition = redisOutageOf(err);
      if (condition === undefined || condition === "connection" || redis.status !== "ready") {
        return [
          fail(
            "redis",
            `cannot reach Redis at ${shown} (from ${options.source}): ${(err as Error).message}`,
            "start Redis: `echo-runner start` runs a local redis-server when REDIS_URL is unset, `docker compose up` runs one in a container; or point REDIS_URL (or redis.url) at a running Redis",
          ),
        ];
      }
      const { what, fix } = describeRedisOutage(condition);
      refused = fail("redis.writes", `${what} (Redis: ${(err as Error).message.split("\n")[0]})`, fix);
    }
    const info = parseInfo(await redis.info());
    const version = info.get("redis_version") ?? "0.0.0";
    const checks = [ok("redis", `reachable at ${shown} (from ${options.source})`)];
    if (compareVersions(version, BULLMQ_MINIMUM) < 0) {
      checks.push(
        fail(
          "redis.version",
          `Redis ${version} is older than ${BULLMQ_MINIMUM}, which BullMQ needs`,
          `upgrade to Redis ${BULLMQ_RECOMMENDED} or newer (7.x recommended)`,
        ),
      );
    } else if (compareVersions(version, BULLMQ_RECOMMENDED) < 0) {
      checks.push(
        warn(
          "redis.version",
          `Redis ${version} works but is older than ${BULLMQ_RECOMMENDED}, which BullMQ recommends`,
          `upgrade to Redis ${BULLMQ_RECOMMENDED} or newer (7.x recommended)`,
        ),
      );
    } else checks.push(ok("redis.version", `Redis ${version}`));
    const refusal = writeRefusal(info) ?? refused;
    if (refusal) checks.push(refusal);
    checks.push(await persistence(redis, info));
    checks.push(eviction(info));
    checks.push(memoryUse(info, options.outageSeconds ?? 600));
    const compact = await compactHashes(redis);
    if (compact) checks.push(compact);
    return checks;
  } finally {
    redis.disconnect();
  }
}

async function persistence(redis: Redis, info: Map<string, string>): Promise<DoctorCheck> {
  const fix =
    "turn AOF on: `CONFIG SET appendonly yes` now and `appendonly yes` + `appendfsync everysec` in redis.conf (the shipped docker-compose.yml and `echo-runner start` do this)";
  if (info.get("aof_enabled") === "1") {
    const fsync = await configGet(redis, "appendfsync");
    const loss = crashLoss("yes", fsync);
    if (loss !== undefined && fsync !== undefined) {
      return warn(
        "redis.persistence",
        `AOF is on with ${loss}`,
        "`CONFIG SET appendfsync always` and the same in redis.conf (echo-runner start's own Redis does); execution.durability: strict refuses to start otherwise",
      );
    }
    return ok("redis.persistence", `AOF on${fsync ? ` (appendfsync ${fsync})` : ""}`);
  }
  const save = await configGet(redis, "save");
  if (save === "") {
    return fail(
      "redis.persistence",
      "neither AOF nor RDB snapshots are on: every job, parked approval, schedule, journal and audit entry is lost when Redis restarts",
      fix,
    );
  }
  return warn(
    "redis.persistence",
    `AOF is off${save ? ` (only RDB snapshots: save ${save})` : ""}: writes since the last snapshot are lost when Redis restarts, so a run could repeat a side effect or lose an approval`,
    fix,
  );
}

function eviction(info: Map<string, string>): DoctorCheck {
  const policy = info.get("maxmemory_policy") ?? "unknown";
  if (policy === "noeviction") return ok("redis.eviction", "maxmemory-policy noeviction");
  const maxmemory = Number(info.get("maxmemory") ?? "0");
  const fix =
    "`CONFIG SET maxmemory-policy noeviction` and `maxmemory-policy noeviction` in redis.conf (a full Redis then refuses writes instead of silently dropping jobs)";
  if (maxmemory > 0) {
    return fail(
      "redis.eviction",
      `maxmemory-policy is ${policy} with maxmemory ${maxmemory} bytes: when memory fills, Redis deletes keys — jobs, journals and approvals vanish`,
      fix,
    );
  }
  return warn(
    "redis.eviction",
    `maxmemory-policy is ${policy}: nothing is evicted while maxmemory is 0 (unlimited), but keys will be deleted once a limit is set`,
    fix,
  );
}

/**
 * Request-sized hashes (approval records, journal entries) hold values over Redis's default 64-byte
 * listpack limit; with the limit raised they stay in the compact encoding, about 1 KB less per parked
 * run (docs/BENCHMARKS.md). Only a warning: it costs memory, never correctness. Skipped where CONFIG
 * is disabled.
 */
async function compactHashes(redis: Redis): Promise<DoctorCheck | undefined> {
  const raw = await hashListpackValue(redis);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (value >= COMPACT_HASH_VALUE) return ok("redis.memory", `hash-max-listpack-value ${value}`);
  return warn(
    "redis.memory",
    `hash-max-listpack-value is ${raw}: approval and journal hashes leave the compact encoding, about 1 KB more per parked run`,
    `\`${COMPACT_HASH_FIX}\` and the same in redis.conf (the shipped docker-compose.yml and \`echo-runner start\` do this)`,
  );
}
