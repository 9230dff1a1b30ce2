import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/index.js";
import { warnIfHashesNotCompact } from "../../src/runtime/index.js";
import { startLocalRedis } from "../../workers/local-redis.js";
import { freePort } from "../helpers/free-port.js";

describe("the local redis-server", () => {
  it("keeps a hash with a request-sized value in the compact listpack encoding", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-local-redis-"));
    const local = await startLocalRedis(`redis://127.0.0.1:${await freePort()}`, dir);
    const redis = new Redis(local.url, { maxRetriesPerRequest: 1 });
    try {
      expect(await redis.config("GET", "hash-max-listpack-value")).toEqual([
        "hash-max-listpack-value",
        "1024",
      ]);
      // An approval request's JSON (~900 bytes): over Redis's default 64, under the configured limit.
      await redis.hset("req", "req", "x".repeat(900), "status", "pending");
      expect(await redis.object("ENCODING", "req")).toBe("listpack");
    } finally {
      redis.disconnect();
      await local.stop();
    }
  });
});

describe("the worker's start-up check of the listpack limit", () => {
  it("warns in one line naming the CONFIG SET to run when the limit is below 1024, and not at 1024", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-local-redis-"));
    const local = await startLocalRedis(`redis://127.0.0.1:${await freePort()}`, dir);
    const redis = new Redis(local.url, { maxRetriesPerRequest: 1 });
    const lines: { level: number; msg: string; redis?: string }[] = [];
    const logger = createLogger({
      level: "info",
      format: "json",
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    try {
      await warnIfHashesNotCompact(redis, logger);
      expect(lines).toEqual([]);
      await redis.config("SET", "hash-max-listpack-value", "64");
      await warnIfHashesNotCompact(redis, logger);
      expect(lines).toHaveLength(1);
      expect(lines[0]?.level).toBe(40);
      expect(lines[0]?.msg).toContain("`CONFIG SET hash-max-listpack-value 1024`");
      expect(lines[0]?.redis).toMatch(/:\d+ hash-max-listpack-value 64$/);
    } finally {
      redis.disconnect();
      await local.stop();
    }
  });
});
