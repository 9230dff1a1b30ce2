import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { inject } from "vitest";

/** The URL of the test run's Redis (started by global-setup.ts, or REDIS_URL). */
export function testRedisUrl(): string {
  return inject("redisUrl");
}

/**
 * A key prefix no other test uses: `t:<label>:<random>:`. Every test file (or test) builds its queue
 * names and keys under its own prefix, so tests never see each other's keys.
 */
export function uniquePrefix(label = "test"): string {
  return `t:${label.replace(/[^a-zA-Z0-9_-]/g, "_")}:${randomBytes(4).toString("hex")}`;
}

/** A connected ioredis client for the test run's Redis. BullMQ needs maxRetriesPerRequest null. */
export function testRedisClient(url = testRedisUrl()): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

/** Deletes every key under a prefix (SCAN, not KEYS). */
export async function deleteKeysWithPrefix(client: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) await client.del(...keys);
  } while (cursor !== "0");
}
