import type { TestProject } from "vitest/node";
import { type RedisServerProcess, startRedisServer } from "./redis-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let server: RedisServerProcess | undefined;

/**
 * Starts one real redis-server for the whole test run (or uses REDIS_URL). Test files keep apart by
 * key prefix (see test-redis.ts), not by separate servers.
 */
export async function setup(project: TestProject): Promise<void> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv) {
    project.provide("redisUrl", fromEnv);
    return;
  }
  server = await startRedisServer({ appendfsync: "everysec" });
  project.provide("redisUrl", server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
