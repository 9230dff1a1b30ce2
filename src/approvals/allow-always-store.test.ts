import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import type { AllowAlwaysRecord, AllowAlwaysScope } from "../gate/index.js";
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

function store(): RedisAllowAlwaysStore {
  const prefix = uniquePrefix("always");
  prefixes.push(prefix);
  return new RedisAllowAlwaysStore(redis, prefix);
}

function grant(scope: AllowAlwaysScope, scopeId: string): AllowAlwaysRecord {
  return { v: 1, tool: "exec", argsHash: HASH, scope, scopeId, createdBy: "olga", createdAt: 1 };
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
      expect(await s.find("exec", [{ scope, scopeId: granted }])).toEqual([grant(scope, granted)]);
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
