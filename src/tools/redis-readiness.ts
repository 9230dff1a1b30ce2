import type { Cluster, Redis } from "ioredis";
import type { ToolReadiness } from "../catalog/index.js";

/** Readiness of a tool that keeps its state in Redis: not ready once the connection is closed for good. */
export function redisReadiness(redis: Redis | Cluster, what: string): ToolReadiness {
  return redis.status === "end"
    ? { ready: false, detail: `the Redis connection that holds ${what} is closed` }
    : { ready: true, detail: "ready" };
}
