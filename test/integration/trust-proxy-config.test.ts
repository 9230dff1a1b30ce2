import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/index.js";
import { startHttpPart } from "../../src/runtime/index.js";
import { testConfig } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Trusted proxies as an operator configures it: `http.trust_proxy` in the config file
 * reaches the server `echo-runner serve` starts, so behind the listed proxy each client is counted
 * on its own (ten junk bearers from one person no longer lock everyone out).
 */

const redis = testRedisClient();
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe("http.trust_proxy from the config", () => {
  it("counts failed bearers per forwarded client when the connection comes from a listed proxy", async () => {
    const keyPrefix = uniquePrefix("proxycfg");
    prefixes.push(keyPrefix);
    const dir = await mkdtemp(join(tmpdir(), "echo-proxy-"));
    const config = await testConfig(dir, {
      redis: { url: testRedisUrl(), key_prefix: keyPrefix },
      http: {
        host: "127.0.0.1",
        port: 0,
        trust_proxy: ["127.0.0.1"],
        failure_limit: { window_seconds: 60, per_source: 3, global: 1000, per_link: 20 },
      },
      approvers: [{ id: "bob", token_env: "BOB_TOKEN" }],
      logging: { level: "silent", format: "json" },
    });
    const part = await startHttpPart({
      config,
      logger: createLogger({ level: "silent", format: "json" }),
      env: { BOB_TOKEN: "bob-own-token-0123456789abcdefghijklmnopqr" },
      redis,
      baseDir: dir,
      protectedPaths: [],
    });
    try {
      const call = (client: string) =>
        fetch(`${part.address}/api/approvals`, {
          headers: { authorization: "Bearer junk", "x-forwarded-for": client },
        });
      for (let i = 0; i < 3; i++) expect((await call("203.0.113.7")).status).toBe(401);
      expect((await call("203.0.113.7")).status).toBe(429);
      expect((await call("198.51.100.9")).status).toBe(401);
    } finally {
      await part.stop();
    }
  });
});
