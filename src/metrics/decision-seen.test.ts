import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { createLogger } from "../logging/index.js";
import { sha256Hex } from "../shared/index.js";
import { RunnerMetrics } from "./recorder.js";

let redis: Redis;
const prefix = uniquePrefix("mseen");

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
    });
  const count = async (m: RunnerMetrics) =>
    Number((await redis.hget(m.keys.counter("tool_calls"), JSON.stringify(["exec", "ask", "3"]))) ?? 0);

  it("keeps its dedupe field short enough for a listpack on a stock Redis", async () => {
    const m = metrics();
    const call = { runId: "run-seen-1", idempotencyKey: sha256Hex("call-1") };
    await m.toolDecision("exec", "ask", 3, call);
    await m.toolDecision("exec", "ask", 3, call);
    expect(await count(m)).toBe(1);
    const fields = await redis.hkeys(m.keys.seenDecisions("run-seen-1"));
    expect(fields).toEqual([`${call.idempotencyKey.slice(0, 32)}:ask:3`]);
    expect(await redis.object("ENCODING", m.keys.seenDecisions("run-seen-1"))).toBe("listpack");
  });

  it("does not count again a decision counted before the upgrade (the whole key as JSON)", async () => {
    const m = metrics();
    const call = { runId: "run-seen-2", idempotencyKey: sha256Hex("call-2") };
    const before = await count(m);
    await redis.hset(
      m.keys.seenDecisions("run-seen-2"),
      JSON.stringify([call.idempotencyKey, "ask", 3]),
      "1",
    );
    await m.toolDecision("exec", "ask", 3, call);
    expect(await count(m)).toBe(before);
    await m.toolDecision("exec", "ask", 3, { ...call, runId: "run-seen-3" });
    expect(await count(m)).toBe(before + 1);
  });
});
