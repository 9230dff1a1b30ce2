import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { createLogger } from "../logging/index.js";
import { ManualClock, sha256Hex } from "../shared/index.js";
import {
  DECISION_SEEN_DAYS,
  decisionSeenMember,
  previousDecisionSeenMember,
  RunnerMetrics,
} from "./recorder.js";

let redis: Redis;
const prefix = uniquePrefix("mseen");
const DAY = 24 * 3600 * 1000;
// Noon UTC, so an hour either way stays on the same day.
const clock = new ManualClock(20_000 * DAY + DAY / 2);

beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe("a tool-call decision is counted once per run, call, verdict and step", () => {
  const metrics = () =>
    new RunnerMetrics({
      redis,
      keyPrefix: prefix,
      logger: createLogger({ level: "silent", format: "json" }),
      clock,
    });
  const count = async (m: RunnerMetrics) =>
    Number((await redis.hget(m.keys.counter("tool_calls"), JSON.stringify(["exec", "ask", "3"]))) ?? 0);

  it("remembers it as an integer member of the day's shard (an intset), with no key of its own per run", async () => {
    const m = metrics();
    const call = { runId: "run-seen-1", idempotencyKey: sha256Hex("call-1") };
    const before = await count(m);
    await m.toolDecision("exec", "ask", 3, call);
    await m.toolDecision("exec", "ask", 3, call);
    expect(await count(m)).toBe(before + 1);
    expect(await redis.exists(m.keys.seenDecisions("run-seen-1"))).toBe(0);
    const { member, shard } = decisionSeenMember("run-seen-1", call.idempotencyKey, "ask", 3);
    const day = m.keys.seenDecisionsIn(20_000, shard);
    expect(member).toMatch(/^-?[1-9]\d{0,18}$/);
    expect(shard).toMatch(/^[0-9a-f]{2}$/);
    expect(await redis.sismember(day, member)).toBe(1);
    expect(await redis.call("OBJECT", "ENCODING", day)).toBe("intset");
    const previous = previousDecisionSeenMember("run-seen-1", call.idempotencyKey, "ask", 3);
    expect(await redis.exists(m.keys.seenDecisionsOn(20_000, previous[0]!))).toBe(0);
    // Remembered for the whole of today and DECISION_SEEN_DAYS days after it.
    const ttl = await redis.pttl(day);
    expect(ttl).toBeLessThanOrEqual((DECISION_SEEN_DAYS + 0.5) * DAY);
    expect(ttl).toBeGreaterThan((DECISION_SEEN_DAYS + 0.5) * DAY - 60_000);
    // Another step, verdict, call or run is another decision.
    await m.toolDecision("exec", "ask", 4, call);
    await m.toolDecision("exec", "deny", 3, call);
    await m.toolDecision("exec", "ask", 3, { ...call, idempotencyKey: sha256Hex("call-1b") });
    await m.toolDecision("exec", "ask", 3, { ...call, runId: "run-seen-1b" });
    expect(await count(m)).toBe(before + 3);
  });

  it("does not count again a decision counted on an earlier day, within the days remembered", async () => {
    const m = metrics();
    const call = { runId: "run-seen-days", idempotencyKey: sha256Hex("call-days") };
    const before = await count(m);
    await m.toolDecision("exec", "ask", 3, call);
    clock.advance(DECISION_SEEN_DAYS * DAY);
    await m.toolDecision("exec", "ask", 3, call);
    expect(await count(m)).toBe(before + 1);
    clock.advance(-DECISION_SEEN_DAYS * DAY);
  });

  it("does not count again a decision a previous release counted in a day's set of 22-character members", async () => {
    const m = metrics();
    const call = { runId: "run-seen-strings", idempotencyKey: sha256Hex("call-strings") };
    const before = await count(m);
    const previous = previousDecisionSeenMember(call.runId, call.idempotencyKey, "ask", 3);
    expect(previous).toHaveLength(22);
    // Counted DECISION_SEEN_DAYS days ago, and (another call) today, by a previous release.
    const today = Math.floor(clock.now() / DAY);
    await redis.sadd(m.keys.seenDecisionsOn(today - DECISION_SEEN_DAYS, previous[0]!), previous);
    const other = { ...call, idempotencyKey: sha256Hex("call-strings-2") };
    const otherPrevious = previousDecisionSeenMember(other.runId, other.idempotencyKey, "ask", 3);
    await redis.sadd(m.keys.seenDecisionsOn(today, otherPrevious[0]!), otherPrevious);
    await m.toolDecision("exec", "ask", 3, call);
    await m.toolDecision("exec", "ask", 3, other);
    expect(await count(m)).toBe(before);
    await m.toolDecision("exec", "ask", 3, { ...call, runId: "run-seen-strings-other" });
    expect(await count(m)).toBe(before + 1);
  });

  it.each([
    [
      "the key's first 128 bits, verdict and step (the first compact shape)",
      "short",
      (key: string) => `${key.slice(0, 32)}:ask:3`,
    ],
    ["the whole key as JSON (the first release)", "json", (key: string) => JSON.stringify([key, "ask", 3])],
  ])(
    "does not count again a decision a previous release counted in the run's hash: %s",
    async (_, shape, field) => {
      const m = metrics();
      const runId = `run-seen-old-${shape}`;
      const call = { runId, idempotencyKey: sha256Hex(`call-${runId}`) };
      const before = await count(m);
      await redis.hset(m.keys.seenDecisions(runId), field(call.idempotencyKey), "1");
      await m.toolDecision("exec", "ask", 3, call);
      expect(await count(m)).toBe(before);
      await m.toolDecision("exec", "ask", 3, { ...call, runId: `${runId}-other` });
      expect(await count(m)).toBe(before + 1);
    },
  );
});
