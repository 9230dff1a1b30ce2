import { mkdtemp } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startLocalRedis, startsLocalRedis } from "../../workers/local-redis.js";
import { freePort } from "../helpers/free-port.js";

/**
 * Which Redis `start` uses when REDIS_URL is unset: its own redis-server only for a redis.url on
 * this machine's loopback without credentials; a URL naming another host or a password is the
 * operator's own Redis (before, start ran a local server on its port and never reached that host).
 * And a local port that is taken is named with the two ways out, not as a bare exit.
 */
describe("the local redis-server start runs", () => {
  it.each([
    ["redis://127.0.0.1:6390", true],
    ["redis://localhost:6390", true],
    ["redis://[::1]:6390", true],
    ["redis://127.0.0.2:6390", true],
    ["redis://redis.internal:6379", false],
    ["rediss://10.0.0.5:6380", false],
    ["redis://:s3cret@127.0.0.1:6379", false],
    ["redis://ops:s3cret@localhost:6379", false],
    ["not a url", false],
  ])("%s: start runs its own = %s", (url, local) => {
    expect(startsLocalRedis(url)).toBe(local);
  });

  it("names a taken port with REDIS_URL and redis.url, the settings that get around it", async () => {
    const port = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((listening) => squatter.listen(port, "127.0.0.1", listening));
    try {
      const dir = resolve(await mkdtemp(join(tmpdir(), "echo-redis-taken-")));
      const err = await startLocalRedis(`redis://127.0.0.1:${port}`, dir).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "REDIS_UNAVAILABLE" });
      expect((err as Error).message).toContain(`set REDIS_URL=redis://127.0.0.1:${port}`);
      expect((err as Error).message).toContain("redis.url");
    } finally {
      await new Promise((closed) => squatter.close(closed));
    }
  });
});
