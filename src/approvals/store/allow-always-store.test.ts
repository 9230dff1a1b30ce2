import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import type { AllowAlwaysRecord, AllowAlwaysScope } from "../../gate/index.js";
import { isRunnerError, ManualClock } from "../../shared/index.js";
import { RedisAllowAlwaysStore } from "./allow-always-store.js";

const HASH = "a".repeat(64);
let redis: Redis;
const prefixes: string[] = [];

beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

const DAY = 24 * 3600 * 1000;
const START = Date.UTC(2026, 0, 1);

function store(clock = new ManualClock(START), ttlMs = 30 * DAY): RedisAllowAlwaysStore {
  const prefix = uniquePrefix("always");
  prefixes.push(prefix);
  return new RedisAllowAlwaysStore(redis, prefix, { clock, ttlMs });
}

function grant(scope: AllowAlwaysScope, scopeId: string, argsHash = HASH): AllowAlwaysRecord {
  return { v: 1, tool: "exec", argsHash, scope, scopeId, createdBy: "olga", createdAt: START };
}

describe("RedisAllowAlwaysStore matches agent and scope exactly", () => {
  it.each([
    ["agent", "ops:test", "ops"],
    ["agent", "ops", "op"],
    ["schedule", "nightly:eu", "nightly"],
    ["user", "ann:admin", "ann"],
  ] as const)(
    "a grant of scope %s for %s is not found for %s (no prefix widening)",
    async (scope, granted, asked) => {
      const s = store();
      await s.add(grant(scope, granted));
      expect(await s.find("exec", [{ scope, scopeId: asked }])).toEqual([]);
      expect(await s.find("exec", [{ scope, scopeId: granted }])).toEqual([
        expect.objectContaining(grant(scope, granted)),
      ]);
    },
  );

  it("finds a user grant under another spelling of the same person, and not another scope's grant", async () => {
    const s = store();
    await s.add(grant("user", "Ann"));
    expect(await s.find("exec", [{ scope: "user", scopeId: " ann " }])).toHaveLength(1);
    expect(await s.find("exec", [{ scope: "agent", scopeId: "Ann" }])).toEqual([]);
  });

  it("revokes exactly one scope: revoking ops leaves ops:test's grant", async () => {
    const s = store();
    await s.add(grant("agent", "ops"));
    await s.add(grant("agent", "ops:test"));
    expect(await s.removeScope("exec", "agent", "ops")).toBe(1);
    expect(await s.find("exec", [{ scope: "agent", scopeId: "ops" }])).toEqual([]);
    expect(await s.find("exec", [{ scope: "agent", scopeId: "ops:test" }])).toHaveLength(1);
  });
});

describe("RedisAllowAlwaysStore grants expire and can be listed and revoked", () => {
  it("a grant allows until createdAt + TTL and nothing from then on (and is deleted)", async () => {
    const clock = new ManualClock(START);
    const s = store(clock, 2 * DAY);
    const added = await s.add(grant("agent", "ops"));
    expect(added.expiresAt).toBe(START + 2 * DAY);
    clock.set(START + 2 * DAY - 1);
    expect(await s.find("exec", [{ scope: "agent", scopeId: "ops" }])).toHaveLength(1);
    clock.set(START + 2 * DAY);
    expect(await s.find("exec", [{ scope: "agent", scopeId: "ops" }])).toEqual([]);
    expect(await s.list()).toEqual([]);
    clock.set(START);
    // Deleted when it was read expired: turning the clock back does not bring it back.
    expect(await s.find("exec", [{ scope: "agent", scopeId: "ops" }])).toEqual([]);
  });

  it("a lower TTL shortens grants made before it (counted from their creation with today's setting)", async () => {
    const clock = new ManualClock(START + 5 * DAY);
    const prefix = uniquePrefix("always-ttl");
    prefixes.push(prefix);
    await new RedisAllowAlwaysStore(redis, prefix, { clock, ttlMs: 30 * DAY }).add(grant("agent", "ops"));
    const shorter = new RedisAllowAlwaysStore(redis, prefix, { clock, ttlMs: 4 * DAY });
    expect(await shorter.find("exec", [{ scope: "agent", scopeId: "ops" }])).toEqual([]);
  });

  it("lists live grants with stable ids and revokes exactly the one named", async () => {
    const s = store();
    const a = await s.add(grant("agent", "ops"));
    const b = await s.add(grant("agent", "ops", "b".repeat(64)));
    expect(a.id).toMatch(/^[0-9a-f]{16}$/);
    expect(a.id).not.toBe(b.id);
    expect((await s.list()).map((g) => g.id).sort()).toEqual([a.id, b.id].sort());
    expect(await s.revoke(a.id, "olga")).toMatchObject({ id: a.id, scopeId: "ops" });
    expect((await s.list()).map((g) => g.id)).toEqual([b.id]);
    const again = await s.revoke(a.id, "olga").catch((e: unknown) => e);
    expect(isRunnerError(again, "APPROVAL_GRANT_NOT_FOUND")).toBe(true);
  });

  it("names a stored record that cannot be read beside the live grants; it allows nothing", async () => {
    const prefix = uniquePrefix("always-damaged");
    prefixes.push(prefix);
    const s = new RedisAllowAlwaysStore(redis, prefix, { clock: new ManualClock(START), ttlMs: 30 * DAY });
    const live = await s.add(grant("agent", "ops"));
    const key = `${prefix}:{approvals}:always:exec`;
    await redis.hset(key, `agent:ops:${"b".repeat(64)}`, "{not json");
    await redis.hset(
      key,
      `agent:ops:${"c".repeat(64)}`,
      JSON.stringify({ ...grant("agent", "ops"), scope: "everyone" }),
    );
    const { grants, damaged } = await s.listWithDamaged();
    expect(grants.map((g) => g.id)).toEqual([live.id]);
    expect(damaged).toHaveLength(2);
    expect(damaged.map((d) => d.code)).toEqual(["APPROVAL_CORRUPT", "APPROVAL_CORRUPT"]);
    expect(damaged.map((d) => d.id)).toEqual(
      damaged.map((d) => d.id).filter((id) => /^[0-9a-f]{16}$/.test(id)),
    );
    const messages = damaged.map((d) => d.message).join("\n");
    expect(messages).toContain(
      `allow-always record "agent:ops:${"b".repeat(64)}" of exec is corrupt: it is not valid JSON`,
    );
    expect(messages).toContain(`record "agent:ops:${"c".repeat(64)}" of exec is corrupt: scope:`);
    expect(messages).toContain(`it allows nothing — delete that field of ${key} in Redis`);
    expect((await s.list()).map((g) => g.id)).toEqual([live.id]);
    expect(await s.find("exec", [{ scope: "agent", scopeId: "ops" }])).toEqual([
      expect.objectContaining({ id: live.id }),
    ]);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses a TTL of %s ms (CONFIG_INVALID)", (ttlMs) => {
    expect(() => new RedisAllowAlwaysStore(redis, "x", { ttlMs })).toThrow(/positive number of ms/);
  });
});
