import { describe, expect, it } from "vitest";
import { isRunnerError } from "../shared/index.js";
import { planTicks } from "./catch-up.js";
import { evaluateGrant } from "./grants.js";
import type { Grant, StoredSchedule } from "./records.js";
import { jitterMs, scheduledRunId } from "./run-job.js";
import { parseSchedule, scheduleSpecHash } from "./schedule.js";
import { scheduleInput } from "./test-fixture.js";

const MIN = 60_000;

describe("planTicks", () => {
  // Ticks every 10 minutes; now = 100 min; lateAfter = 1 min. 100 is on time, 90..60 are missed.
  const ticks = [100, 90, 80, 70, 60].map((m) => m * MIN);
  it.each([
    { policy: "none", max: 10, run: [100], missed: 4 },
    { policy: "latest", max: 10, run: [100], missed: 4 },
    { policy: "all", max: 10, run: [60, 70, 80, 90, 100], missed: 0 },
    { policy: "all", max: 2, run: [80, 90, 100], missed: 2 },
  ] as const)("with an on-time tick, $policy (max $max) runs $run", ({ policy, max, run, missed }) => {
    const plan = planTicks({ ticks, now: 100 * MIN, lateAfterMs: MIN, policy, max, truncated: false });
    expect(plan.run.map((p) => p.tick / MIN)).toEqual(run);
    expect(plan.missed?.count ?? 0).toBe(missed);
    expect(plan.through).toBe(100 * MIN);
  });

  it.each([
    { policy: "none", run: [], kinds: [] },
    { policy: "latest", run: [90], kinds: ["caught-up"] },
    { policy: "all", run: [60, 70, 80, 90], kinds: ["caught-up", "caught-up", "caught-up", "caught-up"] },
  ] as const)("without an on-time tick, $policy runs $run", ({ policy, run, kinds }) => {
    const plan = planTicks({
      ticks: ticks.slice(1),
      now: 95 * MIN,
      lateAfterMs: MIN,
      policy,
      max: 10,
      truncated: true,
    });
    expect(plan.run.map((p) => p.tick / MIN)).toEqual(run);
    expect(plan.run.map((p) => p.kind)).toEqual(kinds);
    if (plan.missed) expect(plan.missed.countIsLowerBound).toBe(true);
  });

  it("plans nothing when no tick is due", () => {
    expect(
      planTicks({ ticks: [], now: 0, lateAfterMs: MIN, policy: "all", max: 5, truncated: false }),
    ).toEqual({
      run: [],
      missed: null,
      through: null,
    });
  });
});

function stored(patch: Partial<StoredSchedule> = {}): StoredSchedule {
  const schedule = parseSchedule(scheduleInput());
  return {
    v: 1,
    schedule,
    specHash: scheduleSpecHash(schedule),
    rev: 1,
    createdAt: 0,
    updatedAt: 0,
    ...patch,
  };
}

function grant(patch: Partial<Grant> = {}): Grant {
  return {
    v: 1,
    scheduleId: "nightly",
    specHash: stored().specHash,
    source: "human",
    approver: "bob",
    issuedAt: 0,
    status: "active",
    ...patch,
  };
}

describe("evaluateGrant", () => {
  it.each([
    {
      name: "an active human grant for the current spec",
      s: stored(),
      g: grant(),
      ok: true,
      reason: "granted-by-human",
    },
    {
      name: "an active config grant",
      s: stored(),
      g: grant({ source: "config", configFile: "/c.yaml", approver: undefined }),
      ok: true,
      reason: "granted-by-config",
    },
    { name: "no schedule", s: null, g: grant(), ok: false, reason: "schedule-missing" },
    { name: "no grant", s: stored(), g: null, ok: false, reason: "no-grant" },
    {
      name: "a revoked grant",
      s: stored(),
      g: grant({ status: "revoked" }),
      ok: false,
      reason: "grant-revoked",
    },
    {
      name: "a voided grant",
      s: stored(),
      g: grant({ status: "voided" }),
      ok: false,
      reason: "grant-voided",
    },
    {
      name: "a grant for another spec",
      s: stored(),
      g: grant({ specHash: "f".repeat(64) }),
      ok: false,
      reason: "spec-changed",
    },
    {
      name: "a grant of another schedule",
      s: stored(),
      g: grant({ scheduleId: "other" }),
      ok: false,
      reason: "spec-changed",
    },
  ])("$name → cronAuthorized $ok ($reason)", ({ s, g, ok, reason }) => {
    const result = evaluateGrant(s, g, 5);
    expect(result).toMatchObject({ cronAuthorized: ok, reason, checkedAt: 5 });
  });
});

describe("schedule model", () => {
  it("binds the spec hash to what runs and when, not to pause state or source", () => {
    const base = parseSchedule(scheduleInput());
    const hash = scheduleSpecHash(base);
    expect(scheduleSpecHash({ ...base, enabled: false })).toBe(hash);
    expect(scheduleSpecHash({ ...base, source: { kind: "cli" } })).toBe(hash);
    expect(scheduleSpecHash({ ...base, owner: "eve" })).not.toBe(hash);
    expect(scheduleSpecHash({ ...base, jitterSeconds: 1 })).not.toBe(hash);
    expect(scheduleSpecHash({ ...base, agent: { ...base.agent, allowedTools: ["exec"] } })).not.toBe(hash);
  });

  it("rejects unknown keys and a wrong version", () => {
    for (const input of [
      { ...scheduleInput(), extra: 1 },
      { ...scheduleInput(), v: 2 },
    ]) {
      let err: unknown;
      try {
        parseSchedule(input);
      } catch (e) {
        err = e;
      }
      expect(isRunnerError(err, "SCHEDULE_INVALID")).toBe(true);
    }
  });

  it("derives run ids and jitter deterministically", () => {
    expect(scheduledRunId("a-1", 5)).toBe("sched-a-1-5");
    expect(jitterMs("a", 1000, 0)).toBe(0);
    const j = jitterMs("a", 1000, 30);
    expect(j).toBe(jitterMs("a", 1000, 30));
    expect(j).toBeGreaterThanOrEqual(0);
    expect(j).toBeLessThanOrEqual(30_000);
    const spread = new Set(Array.from({ length: 50 }, (_, i) => jitterMs("a", i * MIN, 30)));
    expect(spread.size).toBeGreaterThan(40);
  });
});
