import { assertNever } from "./assert-never.js";

/**
 * The ways a Redis that is up can refuse work for a while, and the connection being gone. Each
 * refusal is answered before the command ran (a script refused for OOM, MISCONF or READONLY is
 * refused at its first write, and the state cannot change while one script runs), so the same
 * command may simply be sent again once Redis accepts it.
 */
export const REDIS_OUTAGE_CONDITIONS = [
  "oom",
  "misconf",
  "loading",
  "readonly",
  "busy",
  "tryagain",
  "connection",
] as const;
export type RedisOutageCondition = (typeof REDIS_OUTAGE_CONDITIONS)[number];

/** The error prefix Redis answers with, per refusal (the connection has no reply of its own). */
const REPLY_PREFIXES: Record<Exclude<RedisOutageCondition, "connection">, string> = {
  oom: "OOM",
  misconf: "MISCONF",
  loading: "LOADING",
  readonly: "READONLY",
  busy: "BUSY",
  tryagain: "TRYAGAIN",
};

/** ioredis' and Node's words for a connection that is gone or could not be made. */
const CONNECTION_ERRORS =
  /^(Connection is closed|Stream isn't writeable|Reached the max retries per request limit)|\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND)\b/;

/** Which outage an error is, or undefined when it is something else (a bug, bad input, NOSCRIPT). */
export function redisOutageOf(err: unknown): RedisOutageCondition | undefined {
  if (!(err instanceof Error)) return undefined;
  const message = err.message;
  if (err.name === "ReplyError") {
    for (const [condition, prefix] of Object.entries(REPLY_PREFIXES)) {
      if (message.startsWith(`${prefix} `)) return condition as RedisOutageCondition;
    }
    return undefined;
  }
  if (err.name === "MaxRetriesPerRequestError" || CONNECTION_ERRORS.test(message)) return "connection";
  return undefined;
}

/** What each condition means and what fixes it, for logs, `doctor` and the CLI's one-line answers. */
export function describeRedisOutage(condition: RedisOutageCondition): { what: string; fix: string } {
  switch (condition) {
    case "oom":
      return {
        what: "Redis is out of memory (used memory over maxmemory, policy noeviction): it refuses writes",
        fix: "raise maxmemory (`CONFIG SET maxmemory <bytes>` and in redis.conf) or free memory (finished jobs: retention.finished_jobs); keep maxmemory-policy noeviction",
      };
    case "misconf":
      return {
        what: "Redis refuses writes because it could not write its AOF or RDB file (MISCONF: disk full or not writable)",
        fix: "free disk space where Redis keeps its data (CONFIG GET dir) and check the Redis log; writes resume once a write to disk succeeds",
      };
    case "loading":
      return {
        what: "Redis is loading its dataset from disk after a restart (LOADING)",
        fix: "wait: Redis answers once the load is complete (INFO persistence: loading_eta_seconds)",
      };
    case "readonly":
      return {
        what: "this Redis is a read-only replica (READONLY), e.g. during a failover",
        fix: "point REDIS_URL (or redis.url) at the primary, or wait for the failover to finish",
      };
    case "busy":
      return {
        what: "Redis is busy running a long script (BUSY)",
        fix: "wait for the script, or stop it with SCRIPT KILL (a script that wrote cannot be killed: SHUTDOWN NOSAVE)",
      };
    case "tryagain":
      return {
        what: "the Redis Cluster is moving the keys' slot (TRYAGAIN)",
        fix: "wait for the resharding to finish",
      };
    case "connection":
      return {
        what: "the connection to Redis is lost",
        fix: "start Redis or make it reachable (REDIS_URL or redis.url); `echo-runner doctor` checks it",
      };
    default:
      return assertNever(condition, "Redis outage condition");
  }
}
