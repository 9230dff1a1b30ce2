import { afterAll, describe, expect, it } from "vitest";
import { RunMeter } from "../../src/agent/budget/index.js";
import { redisUsageIndex } from "../../src/agent/index.js";
import { Journal } from "../../src/journal/index.js";
import type { AgentJobPayload } from "../../src/queue/index.js";
import { ManualClock, systemClock } from "../../src/shared/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

/** Journals one model response of `run` at step `step`, as the run loop does. */
async function respond(
  journal: Journal,
  run: AgentJobPayload,
  step: number,
  output: number,
  costUsd: number,
  at = Date.now(),
): Promise<void> {
  const key = `model:${step}`;
  await journal.claim({ runId: run.runId, key, owner: "w", leaseMs: 10_000 });
  await journal.complete({
    runId: run.runId,
    key,
    owner: "w",
    result: {
      message: { content: null, toolCalls: [] },
      finishReason: "stop",
      usage: { promptTokens: 100, completionTokens: output, totalTokens: 100 + output },
      activeMs: 1000,
      at,
      costUsd,
    },
  });
}

function meter(journal: Journal, keyPrefix: string, payload: AgentJobPayload, budget: object): RunMeter {
  return RunMeter.start({
    payload,
    journal,
    clock: systemClock,
    budget,
    price: undefined,
    index: redisUsageIndex(redis, keyPrefix, 3_600_000),
    recorded: new Map(),
  });
}

describe("run budgets over journals (real Redis)", () => {
  it("counts a sub-agent's usage against its top-level run", async () => {
    const keyPrefix = uniquePrefix("meter-tree");
    const journal = new Journal({ redis, keyPrefix });
    const parent = testPayload();
    const child = { ...testPayload(), traceId: parent.traceId, parentExecutionId: parent.runId, depth: 1 };
    const budget = { maxOutputTokens: 50 };
    const parentMeter = meter(journal, keyPrefix, parent, budget);
    expect(await parentMeter.exhausted()).toBeUndefined();
    // The child joins its tree at its first budget check, then its response is journalled.
    expect(await meter(journal, keyPrefix, child, budget).exhausted()).toBeUndefined();
    await respond(journal, child, 0, 60, 0);
    expect(await parentMeter.exhausted()).toEqual({ limit: "max_output_tokens", allowed: 50, used: 60 });
    // Another trace's run is not counted.
    expect(await meter(journal, keyPrefix, testPayload(), budget).exhausted()).toBeUndefined();
  });

  it("sums a schedule's cost per UTC day from its runs' journals", async () => {
    const keyPrefix = uniquePrefix("meter-daily");
    const journal = new Journal({ redis, keyPrefix });
    const origin = { kind: "schedule" as const, scheduleId: "nightly" };
    const budget = { maxDailyCostUsd: 1 };
    const earlier = testPayload({ origin });
    expect(await meter(journal, keyPrefix, earlier, budget).exhausted()).toBeUndefined();
    await respond(journal, earlier, 0, 10, 0.7);
    // Yesterday's response of the same run is another day's.
    await respond(journal, earlier, 1, 10, 5, Date.now() - 86_400_000);
    const later = testPayload({ origin });
    expect(await meter(journal, keyPrefix, later, budget).exhausted()).toBeUndefined();
    await respond(journal, earlier, 2, 10, 0.4);
    const reached = await meter(journal, keyPrefix, later, budget).exhausted();
    expect(reached?.limit).toBe("max_daily_cost_usd");
    expect(reached?.used).toBeCloseTo(1.1, 9);
    // Another schedule's day is its own.
    const other = testPayload({ origin: { kind: "schedule", scheduleId: "weekly" } });
    expect(await meter(journal, keyPrefix, other, budget).exhausted()).toBeUndefined();
  });

  it("counts active time between responses, not the time a run was parked", async () => {
    const keyPrefix = uniquePrefix("meter-wall");
    const journal = new Journal({ redis, keyPrefix });
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 12));
    const payload = testPayload();
    const start = (recorded: Map<string, unknown>) =>
      RunMeter.start({
        payload,
        journal,
        clock,
        budget: { maxWallSeconds: 30 },
        price: undefined,
        index: undefined,
        recorded,
      });
    const first = start(new Map());
    clock.advance(20_000);
    const response = first.stamp(
      { message: { content: null, toolCalls: [] }, finishReason: "stop", usage: null },
      [],
    );
    expect(response).toMatchObject({ activeMs: 20_000, at: clock.now(), costUsd: 0 });
    first.recorded(response, false);
    expect(await first.exhausted()).toBeUndefined();
    // Parked for an hour; the resumed attempt reads the journalled response and starts a new segment.
    clock.advance(3_600_000);
    const resumed = start(new Map([["model:0", response]]));
    expect(resumed.own.activeMs).toBe(20_000);
    clock.advance(11_000);
    resumed.recorded(resumed.stamp(response, []), false);
    expect(await resumed.exhausted()).toEqual({ limit: "max_wall_seconds", allowed: 30, used: 31 });
  });
});
