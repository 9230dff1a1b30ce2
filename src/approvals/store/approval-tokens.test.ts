import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { ManualClock } from "../../shared/index.js";
import { ApprovalStore } from "./approval-store.js";
import { hashLinkToken, legacyLinkTokenHash, newLinkToken } from "./link-tokens.js";

const T0 = 1_700_000_000_000;
let redis: Redis;
let store: ApprovalStore;
let clock: ManualClock;
let prefix: string;
let n = 0;

beforeAll(() => {
  redis = testRedisClient();
  prefix = uniquePrefix("apprtok");
  clock = new ManualClock(T0);
  store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock,
    policy: {
      waitTimeoutMs: 3_600_000,
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: null },
      ],
    },
  });
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function registered() {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: `trace-${n}`,
    idempotencyKey: `k-${n}`,
    tool: "exec",
    args: { command: `echo ${n}` },
    risk: "exec",
    reason: "needs a person",
    agent: "a",
    channel: "cron",
  });
  return record;
}

const byToken = (id: string, token: string, decision: "approve" | "deny" = "approve") =>
  store.decide({ id, actor: { kind: "token", token }, decision });

describe("link tokens", () => {
  it("stores only the token's hash", async () => {
    const record = await registered();
    const token = (await store.issueToken(record.id, "alice"))!;
    const fields = await redis.hgetall(store.keys.request(record.id));
    expect(JSON.stringify(fields)).not.toContain(token);
    expect(fields[`t:${hashLinkToken(token)}`]).toContain('"s":"live"');
  });

  it("stores the token as a 22-character lookup key (its t: field and cur:), not as a hex SHA-256", async () => {
    const record = await registered();
    const token = (await store.issueToken(record.id, "alice"))!;
    const fields = await redis.hgetall(store.keys.request(record.id));
    const short = hashLinkToken(token);
    expect(short).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(short, "base64url")).toEqual(
      Buffer.from(legacyLinkTokenHash(token), "hex").subarray(0, 16),
    );
    expect(fields["cur:alice"]).toBe(short);
    expect(Object.keys(fields).filter((f) => f.startsWith("t:"))).toEqual([`t:${short}`]);
    expect(JSON.stringify(fields)).not.toContain(legacyLinkTokenHash(token));
  });

  it("decides as the token's approver, then refuses the same token and reports the first decision", async () => {
    const record = await registered();
    const token = (await store.issueToken(record.id, "alice"))!;
    const first = await byToken(record.id, token);
    expect(first).toMatchObject({ outcome: "decided", record: { status: "approved" } });
    expect(first.record?.decisions[0]).toMatchObject({ by: "alice", via: "link", kind: "once" });
    const reused = await byToken(record.id, token, "deny");
    expect(reused.outcome).toBe("token_used");
    expect(reused.record?.status).toBe("approved");
  });

  it.each([
    ["a forged token", () => newLinkToken().token],
    ["a token that is not even token-shaped", () => "not-a-token"],
    ["an empty token", () => ""],
  ])("refuses %s without revealing the request", async (_name, forge) => {
    const record = await registered();
    await store.issueToken(record.id, "alice");
    expect(await byToken(record.id, forge())).toEqual({ outcome: "token_invalid", record: null });
    expect((await store.get(record.id))?.status).toBe("pending");
  });

  it("refuses a valid token of another request", async () => {
    const mine = await registered();
    const other = await registered();
    const otherToken = (await store.issueToken(other.id, "alice"))!;
    expect(await byToken(mine.id, otherToken)).toEqual({ outcome: "token_invalid", record: null });
    expect((await store.get(mine.id))?.status).toBe("pending");
  });

  it("keeps one live token per approver: a newer token replaces the older one", async () => {
    const record = await registered();
    const older = (await store.issueToken(record.id, "alice"))!;
    const newer = (await store.issueToken(record.id, "alice"))!;
    expect((await byToken(record.id, older)).outcome).toBe("token_replaced");
    expect((await byToken(record.id, newer)).outcome).toBe("decided");
  });

  it("refuses a token once the request expired, and issues none after the deadline", async () => {
    const record = await registered();
    const token = (await store.issueToken(record.id, "alice"))!;
    clock.set(record.deadline);
    try {
      expect((await byToken(record.id, token)).outcome).toBe("expired");
      expect(await store.issueToken(record.id, "bob")).toBeNull();
    } finally {
      clock.set(T0);
    }
  });

  it("refuses a token whose run was cancelled", async () => {
    const record = await registered();
    const token = (await store.issueToken(record.id, "alice"))!;
    await store.cancelRun(record.runId);
    const result = await byToken(record.id, token);
    expect(result).toMatchObject({ outcome: "not_pending", record: { status: "cancelled" } });
  });

  it("records exactly one decision when 20 requests race with the same token", async () => {
    const record = await registered();
    const token = (await store.issueToken(record.id, "alice"))!;
    const racers = Array.from({ length: 20 }, () => testRedisClient());
    try {
      const stores = racers.map(
        (client) =>
          new ApprovalStore({
            redis: client,
            keyPrefix: prefix,
            clock,
            // Every process runs the same config: alice is on its list (a token's
            // approver must be on the deciding process's list).
            policy: { waitTimeoutMs: 1, approvers: [{ id: "alice", email: "alice@example.test" }] },
          }),
      );
      const results = await Promise.all(
        stores.map((s, i) =>
          s.decide({ id: record.id, actor: { kind: "token", token }, decision: i % 2 ? "deny" : "approve" }),
        ),
      );
      const outcomes = results.map((r) => r.outcome);
      expect(outcomes.filter((o) => o === "decided")).toHaveLength(1);
      expect(outcomes.filter((o) => o === "token_used")).toHaveLength(19);
      expect((await store.get(record.id))?.decisions).toHaveLength(1);
    } finally {
      for (const client of racers) client.disconnect();
    }
  });

  it("refuses to issue a token for someone who is not an approver", async () => {
    const record = await registered();
    await expect(store.issueToken(record.id, "mallory")).rejects.toMatchObject({
      code: "APPROVAL_INPUT_INVALID",
    });
  });
});

describe("fetch log", () => {
  it("keeps the newest 50 fetches with method, address and user agent", async () => {
    const record = await registered();
    for (let i = 0; i < 55; i += 1) {
      clock.set(T0 + i);
      await store.recordFetch(record.id, {
        method: "GET",
        ip: "127.0.0.1",
        userAgent: `scanner/${i}`,
        approver: null,
      });
    }
    clock.set(T0);
    const fetches = (await store.get(record.id))!.fetches;
    expect(fetches).toHaveLength(50);
    expect(fetches[0]).toEqual({
      at: T0 + 54,
      method: "GET",
      ip: "127.0.0.1",
      userAgent: "scanner/54",
      approver: null,
    });
  });

  it("records nothing for an unknown request", async () => {
    const id = "f".repeat(32);
    await store.recordFetch(id, { method: "HEAD", ip: "127.0.0.1", userAgent: "x", approver: null });
    expect(await redis.exists(store.keys.fetches(id))).toBe(0);
  });
});
