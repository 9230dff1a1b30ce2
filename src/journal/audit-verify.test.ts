import type { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { auditKeys } from "./audit-chain.js";
import type { AuditEvent } from "./audit-entry.js";
import { AuditTrail } from "./audit-trail.js";
import { verifyAudit } from "./audit-verify.js";

const redis = testRedisClient();
const root = uniquePrefix("audit-verify");

afterAll(async () => {
  await deleteKeysWithPrefix(redis, root);
  redis.disconnect();
});

function decision(i: number): AuditEvent {
  return {
    kind: "decision",
    traceId: "trace-live",
    executionId: `exec-${i}`,
    tool: "write_file",
    risk: "write",
    capabilities: ["fs.write"],
    verdict: "allow",
    step: 5,
    reason: `write not flagged #${i}`,
    approvalSource: "auto",
  };
}

/**
 * The same Redis connection, except that right after each stream page is read a writer appends one
 * more entry: the interleaving of `audit verify` with a live worker, made deterministic.
 */
function appendingAfterEachPage(trail: AuditTrail, next: () => number): Redis {
  return new Proxy(redis, {
    get(target, prop) {
      if (prop === "xrange") {
        return async (...args: Parameters<Redis["xrange"]>) => {
          const page = await target.xrange(...args);
          await trail.append(decision(next()));
          return page;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("verifyAudit on a live trail", () => {
  // Regression (chaos suite, Redis-kill scenario): the head was read after the walk, so an entry
  // appended during the walk was reported as entries removed from the end.
  it("is not fooled by entries appended while it walks", async () => {
    const keyPrefix = `${root}-appending`;
    const trail = new AuditTrail({ redis, keyPrefix });
    let i = 0;
    for (; i < 5; i++) await trail.append(decision(i));
    const live = appendingAfterEachPage(trail, () => i++);
    expect(await verifyAudit({ redis: live, keyPrefix, pageSize: 2 })).toMatchObject({ ok: true });
    expect(await verifyAudit({ redis, keyPrefix })).toMatchObject({ ok: true, checked: i });
  });

  it("still reports entries cut from the end, and a head that names another entry", async () => {
    const keyPrefix = `${root}-cut`;
    const trail = new AuditTrail({ redis, keyPrefix });
    for (let i = 0; i < 4; i++) await trail.append(decision(i));
    const keys = auditKeys(keyPrefix);
    const ids = ((await redis.xrange(keys.stream, "-", "+")) as [string, string[]][]).map(([id]) => id);
    const [hash] = await redis.hmget(keys.head, "hash");
    await redis.hset(keys.head, "hash", "0".repeat(64));
    expect(await verifyAudit({ redis, keyPrefix })).toMatchObject({
      ok: false,
      brokenAt: { problem: "head_mismatch", seq: 4 },
    });
    await redis.hset(keys.head, "hash", hash!);
    await redis.xdel(keys.stream, ids[3]!);
    expect(await verifyAudit({ redis, keyPrefix })).toMatchObject({
      ok: false,
      checked: 3,
      brokenAt: { id: ids[2], seq: 3, problem: "head_mismatch" },
    });
    await redis.del(keys.head);
    expect(await verifyAudit({ redis, keyPrefix })).toMatchObject({
      ok: false,
      brokenAt: { problem: "head_mismatch" },
    });
  });
});
