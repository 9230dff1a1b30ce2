import type { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { createLogger } from "../logging/index.js";
import { isRunnerError } from "../shared/index.js";
import { reconcileConfigSchedules } from "./config-reconcile.js";
import { createScheduleRunHooks } from "./schedule-service.js";
import { configEntry, type SchedulerFixture, scheduleInput, schedulerFixture } from "./test-fixture.js";

const T0 = Date.parse("2025-01-01T00:30:00Z");
const HUMAN = { approvalSource: "human" as const, approver: "bob" };
const AUTO = { approvalSource: "auto" as const };
let redis: Redis;
const fixtures: SchedulerFixture[] = [];

function setup(): SchedulerFixture {
  redis ??= testRedisClient();
  const f = schedulerFixture(redis, uniquePrefix("svc"), T0);
  fixtures.push(f);
  return f;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

afterEach(async () => {
  for (const f of fixtures.splice(0)) {
    await f.close();
    await deleteKeysWithPrefix(redis, f.prefix);
    await deleteKeysWithPrefix(redis, `{${f.prefix}}`);
  }
});
afterAll(() => redis?.disconnect());

describe("ScheduleService validation", () => {
  it.each([
    { patch: { cron: "0 25 * * *" }, field: "cron" },
    { patch: { cron: "* * *" }, field: "cron" },
    { patch: { timezone: "Europe/Atlantis" }, field: "timezone" },
    { patch: { id: "has space" }, field: "id" },
    { patch: { overlap: "sometimes" as never }, field: "overlap" },
    { patch: { catchUpMax: 5000 }, field: "catchUpMax" },
  ])("rejects $patch naming the field $field", async ({ patch, field }) => {
    const err = await caught(setup().service.create(scheduleInput(patch), AUTO));
    expect(isRunnerError(err, "SCHEDULE_INVALID")).toBe(true);
    expect((err as { data: { field: string } }).data.field).toBe(field);
  });

  it("rejects a second schedule with the same id", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), AUTO);
    const err = await caught(f.service.create(scheduleInput(), AUTO));
    expect(isRunnerError(err, "SCHEDULE_INVALID")).toBe(true);
    expect((err as Error).message).toMatch(/already exists/);
  });

  it("applies the defaults: overlap skip, catch-up latest (max 10), no jitter, enabled", async () => {
    const view = await setup().service.create(scheduleInput(), AUTO);
    expect(view.schedule).toMatchObject({
      overlap: "skip",
      catchUp: "latest",
      catchUpMax: 10,
      jitterSeconds: 0,
      enabled: true,
    });
    expect(view.nextTick).toBe(Date.parse("2025-01-01T01:00:00Z"));
  });

  it("previews the next firings in the schedule's zone", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ cron: "0 9 * * MON-FRI", timezone: "America/New_York" }), AUTO);
    const next = await f.service.nextFires("nightly", 3);
    expect(next.map((t) => new Date(t).toISOString())).toEqual([
      "2025-01-01T14:00:00.000Z",
      "2025-01-02T14:00:00.000Z",
      "2025-01-03T14:00:00.000Z",
    ]);
  });
});

describe("cron authorisation grants", () => {
  it.each([
    { approval: HUMAN, authorized: true, reason: "granted-by-human" },
    { approval: AUTO, authorized: false, reason: "no-grant" },
    { approval: { approvalSource: null }, authorized: false, reason: "no-grant" },
  ])(
    "a schedule created with $approval.approvalSource approval is cron-authorised: $authorized",
    async ({ approval, authorized, reason }) => {
      const f = setup();
      await f.service.create(scheduleInput(), approval);
      const result = await f.service.resolveCronAuthorization("nightly", T0);
      expect(result).toMatchObject({ cronAuthorized: authorized, reason });
    },
  );

  it("refuses a human approval without the approver's id", async () => {
    const err = await caught(setup().service.create(scheduleInput(), { approvalSource: "human" }));
    expect(isRunnerError(err, "SCHEDULE_INVALID")).toBe(true);
  });

  it("voids the grant when the spec is edited without a human approval, and a new approval restores it", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), HUMAN);
    await f.service.update(
      "nightly",
      { agent: { ...scheduleInput().agent, task: "delete the inbox" } },
      AUTO,
    );
    expect(await f.service.resolveCronAuthorization("nightly", T0)).toMatchObject({
      cronAuthorized: false,
      reason: "grant-voided",
    });
    // Editing back to the approved spec does not revive the voided grant.
    await f.service.update("nightly", { agent: scheduleInput().agent }, AUTO);
    expect((await f.service.resolveCronAuthorization("nightly", T0)).cronAuthorized).toBe(false);
    await f.service.update("nightly", { cron: "15 * * * *" }, { approvalSource: "human", approver: "carol" });
    const after = await f.service.resolveCronAuthorization("nightly", T0);
    expect(after).toMatchObject({ cronAuthorized: true, reason: "granted-by-human" });
    expect(after.grant?.approver).toBe("carol");
  });

  it("keeps the grant across pause and resume (not a spec change)", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), HUMAN);
    await f.service.pause("nightly", "ops");
    await f.service.resume("nightly", "ops");
    expect((await f.service.resolveCronAuthorization("nightly", T0)).cronAuthorized).toBe(true);
  });

  it("denies a grant whose stored spec hash no longer matches the schedule (record changed behind the API)", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), HUMAN);
    const stored = (await f.store.get("nightly"))!;
    const tampered = {
      ...stored,
      schedule: { ...stored.schedule, owner: "mallory" },
      specHash: "0".repeat(64),
    };
    await f.store.redis.hset(f.store.keys.defs, "nightly", JSON.stringify(tampered));
    expect(await f.service.resolveCronAuthorization("nightly", T0)).toMatchObject({
      cronAuthorized: false,
      reason: "spec-changed",
    });
  });

  it("revoke takes effect for the next run check, and a second revoke finds nothing to revoke", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), HUMAN);
    const before = await f.service.resolveCronAuthorization("nightly", T0);
    const revoked = await f.service.revoke("nightly", "ops");
    expect(revoked?.status).toBe("revoked");
    const after = await f.service.resolveCronAuthorization("nightly", T0 + 1);
    expect([before.cronAuthorized, after.cronAuthorized, after.reason]).toEqual([
      true,
      false,
      "grant-revoked",
    ]);
    expect(await f.service.revoke("nightly", "ops")).toBeNull();
  });

  it("answers schedule-missing for a deleted schedule", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), HUMAN);
    expect(await f.service.delete("nightly")).toBe(true);
    expect((await f.service.resolveCronAuthorization("nightly", T0)).reason).toBe("schedule-missing");
    expect(await f.store.redis.hexists(f.store.keys.grants, "nightly")).toBe(0);
  });
});

describe("run-now and run bookkeeping", () => {
  it("enqueues a manual run that counts as active until the worker reports it finished (idempotently)", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), AUTO);
    const { runId } = await f.service.runNow("nightly", "ops");
    expect(runId).toBe(`sched-nightly-manual-${T0}`);
    expect(await f.jobIds()).toEqual([runId]);
    expect([...(await f.store.activeRuns("nightly")).keys()]).toEqual([runId]);
    await f.service.markScheduleRunFinished("nightly", runId);
    await f.service.markScheduleRunFinished("nightly", runId);
    expect((await f.store.activeRuns("nightly")).size).toBe(0);
    const kinds = (await f.service.history("nightly")).map((e) => e.kind);
    expect(kinds.filter((k) => k === "finished")).toHaveLength(1);
  });
});

describe("config reconcile", () => {
  const FILE = "/etc/echo-runner/config.yaml";

  it("adds, updates and removes config schedules and leaves cronjob schedules alone", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ id: "from-tool" }), AUTO);
    const first = await reconcileConfigSchedules(
      f.store,
      [configEntry({ id: "a" }), configEntry({ id: "b" }), configEntry({ id: "c" })],
      T0,
    );
    expect(first).toEqual({
      added: ["a", "b", "c"],
      updated: [],
      removed: [],
      unchanged: [],
      skipped: [],
      damaged: [],
    });
    const second = await reconcileConfigSchedules(
      f.store,
      [configEntry({ id: "a" }), configEntry({ id: "b", cron: "5 * * * *" })],
      T0 + 1000,
    );
    expect(second).toEqual({
      added: [],
      updated: ["b"],
      removed: ["c"],
      unchanged: ["a"],
      skipped: [],
      damaged: [],
    });
    expect((await f.service.list()).map((v) => v.schedule.id)).toEqual(["a", "b", "from-tool"]);
    expect((await f.store.get("b"))!.schedule.cron).toBe("5 * * * *");
    expect(await f.store.nextTick("b")).toBe(Date.parse("2025-01-01T01:05:00Z"));
  });

  it("records a config authorisation with its file, and voids it when the config stops authorising", async () => {
    const f = setup();
    await reconcileConfigSchedules(f.store, [configEntry({ id: "a" }, true, FILE)], T0);
    const granted = await f.service.resolveCronAuthorization("a", T0);
    expect(granted).toMatchObject({ cronAuthorized: true, reason: "granted-by-config" });
    expect(granted.grant).toMatchObject({ source: "config", configFile: FILE });
    await reconcileConfigSchedules(f.store, [configEntry({ id: "a" }, false, FILE)], T0 + 1);
    expect((await f.service.resolveCronAuthorization("a", T0 + 1)).reason).toBe("grant-voided");
  });

  it("keeps an operator's revoke across restarts until the config spec changes", async () => {
    const f = setup();
    await reconcileConfigSchedules(f.store, [configEntry({ id: "a" }, true)], T0);
    await f.service.revoke("a", "ops");
    const again = await reconcileConfigSchedules(f.store, [configEntry({ id: "a" }, true)], T0 + 1);
    expect(again.unchanged).toEqual(["a"]);
    expect((await f.service.resolveCronAuthorization("a", T0 + 1)).reason).toBe("grant-revoked");
    await reconcileConfigSchedules(f.store, [configEntry({ id: "a", cron: "30 * * * *" }, true)], T0 + 2);
    expect((await f.service.resolveCronAuthorization("a", T0 + 2)).cronAuthorized).toBe(true);
  });

  it("refuses to update or delete a config schedule through the API", async () => {
    const f = setup();
    await reconcileConfigSchedules(f.store, [configEntry({ id: "a" })], T0);
    for (const attempt of [f.service.update("a", { cron: "1 * * * *" }, HUMAN), f.service.delete("a")]) {
      const err = await caught(attempt);
      expect(isRunnerError(err, "SCHEDULE_INVALID")).toBe(true);
      expect((err as Error).message).toMatch(/config file/);
    }
  });

  it("skips a config id that a cronjob schedule already uses, and a duplicate config id, and adds the rest", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ id: "x" }), AUTO);
    const report = await reconcileConfigSchedules(
      f.store,
      [configEntry({ id: "x" }), configEntry({ id: "y" }), configEntry({ id: "y", cron: "5 * * * *" })],
      T0,
    );
    expect(report.added).toEqual(["y"]);
    expect(report.skipped).toEqual([
      { index: 0, id: "x", field: "id", message: expect.stringMatching(/already used/) },
      { index: 2, id: "y", field: "id", message: expect.stringMatching(/appears twice/) },
    ]);
    expect((await f.store.get("x"))!.schedule.source.kind).toBe("cronjob");
  });

  it("skips an invalid config schedule, keeps its stored version, and fires the others", async () => {
    const f = setup();
    await reconcileConfigSchedules(f.store, [configEntry({ id: "kept" })], T0);
    const lines: { level: number; msg: string; scheduleId?: string; err?: unknown }[] = [];
    const logger = createLogger({
      level: "info",
      format: "json",
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    const s = f.scheduler({
      logger,
      configSchedules: [
        configEntry({ id: "bad-zone", timezone: "Europe/Berln" }),
        configEntry({ id: "kept", cron: "61 * * * *" }),
        configEntry({ id: "good" }),
        configEntry({ id: "never", cron: "0 0 31 4 *" }),
      ],
    });
    const first = await s.runDue(T0);
    expect(first.reconciled?.added).toEqual(["good"]);
    expect(first.reconciled?.skipped.map((k) => [k.index, k.id, k.field])).toEqual([
      [0, "bad-zone", "timezone"],
      [1, "kept", "cron"],
      [3, "never", "cron"],
    ]);
    // The stored "kept" stays as it was (not replaced, not removed) and still fires, like "good".
    expect((await f.store.get("kept"))!.schedule.cron).toBe("0 * * * *");
    await s.runDue(Date.parse("2025-01-01T01:00:01Z"));
    await s.runDue(Date.parse("2025-01-01T01:00:02Z"));
    const fired = (await f.jobIds()).join(" ");
    expect(fired).toMatch(/good/);
    expect(fired).toMatch(/kept/);
    const skippedLines = lines.filter((l) => / skipped, the others run: /.test(l.msg));
    expect(skippedLines.map((l) => l.scheduleId)).toEqual(["bad-zone", "kept", "never"]);
    expect(skippedLines[0]!.msg).toContain('schedules[0] (id "bad-zone") skipped');
    expect(skippedLines.every((l) => l.level === 40 && l.err === undefined)).toBe(true);
    expect(lines.filter((l) => /scheduler pass failed/.test(l.msg))).toEqual([]);
  });

  it("reconciles when a scheduler becomes leader, once", async () => {
    const f = setup();
    const s = f.scheduler({ configSchedules: [configEntry({ id: "a" }, true)] });
    const first = await s.runDue(T0);
    const second = await s.runDue(T0 + 1000);
    expect(first.reconciled?.added).toEqual(["a"]);
    expect(second.reconciled).toBeUndefined();
  });
});

describe("createScheduleRunHooks", () => {
  it("gives the worker the grant check at run start and the run-finished call on its own connection", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), HUMAN);
    const hooks = createScheduleRunHooks({ redis, keyPrefix: f.prefix });
    expect((await hooks.resolveCronAuthorization("nightly", T0)).cronAuthorized).toBe(true);
    const { runId } = await f.service.runNow("nightly", "ops");
    await hooks.markScheduleRunFinished("nightly", runId);
    expect((await f.store.activeRuns("nightly")).size).toBe(0);
  });
});
