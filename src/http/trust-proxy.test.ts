import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { ApprovalStore } from "../approvals/index.js";
import { createLogger } from "../logging/index.js";
import { OperatorCredentials } from "./auth/index.js";
import { createHttpServer } from "./server.js";

/**
 * Behind a reverse proxy every client was the proxy's address, so ten
 * junk bearers throttled everyone. `http.trust_proxy` lists the proxies whose X-Forwarded-For is
 * believed; off (the default) and from anyone else, the header is ignored.
 */

const BOB = "bob-own-token-0123456789abcdefghijklmnopqr";
let redis: Redis;
const prefixes: string[] = [];
const logger = createLogger({ level: "silent", format: "json" });

beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function server(trustProxy: readonly string[] | undefined) {
  const prefix = uniquePrefix("proxy");
  prefixes.push(prefix);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "bob", email: null }] },
  });
  const app = createHttpServer({
    redis,
    logger,
    keyPrefix: prefix,
    operators: new OperatorCredentials([{ id: "bob", token: BOB }]),
    failureLimits: { perSource: 3, global: 1000 },
    approvals: { store, publicUrl: "http://127.0.0.1:8787" },
    ...(trustProxy ? { trustProxy } : {}),
  });
  await app.ready();
  return app;
}

/** A bearer request reaching the server from `remote` (the proxy) on behalf of `forwardedFor`. */
function call(app: Awaited<ReturnType<typeof server>>, remote: string, forwardedFor: string, token: string) {
  return app.inject({
    method: "GET",
    url: "/api/approvals",
    remoteAddress: remote,
    headers: { authorization: `Bearer ${token}`, "x-forwarded-for": forwardedFor },
  });
}

describe("http.trust_proxy", () => {
  it("from a listed proxy, throttles each forwarded client on its own: one client's junk does not throttle another", async () => {
    const app = await server(["127.0.0.1", "10.0.0.0/8"]);
    for (let i = 0; i < 3; i++)
      expect((await call(app, "10.1.2.3", "203.0.113.7", "junk")).statusCode).toBe(401);
    expect((await call(app, "10.1.2.3", "203.0.113.7", "junk")).statusCode).toBe(429);
    // Another person behind the same proxy is another address.
    expect((await call(app, "10.1.2.3", "198.51.100.9", "junk")).statusCode).toBe(401);
    expect((await call(app, "127.0.0.1", "198.51.100.9", BOB)).statusCode).toBe(200);
    await app.close();
  });

  it("off by default: X-Forwarded-For is ignored and the client is whoever connects", async () => {
    const app = await server(undefined);
    for (let i = 0; i < 3; i++)
      expect((await call(app, "192.0.2.1", `203.0.113.${i}`, "junk")).statusCode).toBe(401);
    // A made-up forwarded address does not buy a fresh counter.
    expect((await call(app, "192.0.2.1", "198.51.100.200", "junk")).statusCode).toBe(429);
    await app.close();
  });

  it("an empty list is off, and a connection from an address not listed has its header ignored", async () => {
    for (const list of [[], ["10.0.0.0/8"]]) {
      const app = await server(list);
      for (let i = 0; i < 3; i++)
        expect((await call(app, "192.0.2.1", `203.0.113.${i}`, "junk")).statusCode).toBe(401);
      expect((await call(app, "192.0.2.1", "198.51.100.200", "junk")).statusCode).toBe(429);
      await app.close();
    }
  });
});
