import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
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
