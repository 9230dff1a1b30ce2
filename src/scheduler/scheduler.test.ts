import type { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { parseAgentJobPayload } from "../queue/index.js";
import type { HistoryKind } from "./records.js";
import { type SchedulerFixture, scheduleInput, schedulerFixture } from "./test-fixture.js";
import { TickFirer } from "./tick-firer.js";

const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;
const clients: Redis[] = [];
const fixtures: SchedulerFixture[] = [];

function client(): Redis {
  const redis = testRedisClient();
  clients.push(redis);
  return redis;
}

/** A fixture on its own connection; `twin` shares the prefix through a second connection. */
function setup(start = at("2025-01-01T00:30:00Z")) {
  const fixture = schedulerFixture(client(), uniquePrefix("sched"), start);
  fixtures.push(fixture);
  const twin = () => {
    const other = schedulerFixture(client(), fixture.prefix, start);
    fixtures.push(other);
    other.clock.set(fixture.clock.now());
    return other;
  };
  return { ...fixture, twin };
}

async function kinds(f: SchedulerFixture, id = "nightly"): Promise<HistoryKind[]> {
  return (await f.store.history(id, 100)).map((e) => e.kind).reverse();
}

afterEach(async () => {
  for (const f of fixtures.splice(0)) {
    await f.close();
    await deleteKeysWithPrefix(clients[0]!, f.prefix);
    await deleteKeysWithPrefix(clients[0]!, `{${f.prefix}}`);
  }
});
afterAll(() => {
  for (const redis of clients) redis.disconnect();
});

describe("Scheduler firing", () => {
  it("enqueues one agent job per tick with a schedule-origin, unattended, cron-channel payload", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), { approvalSource: null });
    const scheduler = f.scheduler();
    expect((await scheduler.runDue(at("2025-01-01T00:59:59Z"))).results).toEqual({});
    const report = await scheduler.runDue(at("2025-01-01T01:00:00.200Z"));
    expect(report.results).toEqual({ fired: 1 });
    await scheduler.runDue(at("2025-01-01T01:00:01Z"));
    expect(await f.jobIds()).toEqual(["sched-nightly-1735693200000"]);
    const job = await f.queue.getJob("sched-nightly-1735693200000");
    const payload = parseAgentJobPayload(job!.data);
    expect(payload).toMatchObject({
      runId: "sched-nightly-1735693200000",
      origin: { kind: "schedule", scheduleId: "nightly", scheduledFor: at("2025-01-01T01:00:00Z") },
      unattended: true,
      channel: "cron",
      userId: "alice",
      depth: 0,
      parentExecutionId: null,
    });
    expect(await f.store.nextTick("nightly")).toBe(at("2025-01-01T02:00:00Z"));
  });

  it("fires each tick once when two schedulers on separate connections run every pass together", async () => {
    const a = setup();
    const b = a.twin();
    await a.service.create(scheduleInput({ overlap: "allow" }), { approvalSource: null });
    const sa = a.scheduler();
    const sb = b.scheduler();
    const leaders: boolean[] = [];
    for (let hour = 1; hour <= 4; hour++) {
      const now = at("2025-01-01T00:00:00Z") + hour * HOUR + 500;
      const [ra, rb] = await Promise.all([sa.runDue(now), sb.runDue(now)]);
      leaders.push(ra.leader !== rb.leader);
    }
    expect(leaders).toEqual([true, true, true, true]);
    expect(await a.jobIds()).toHaveLength(4);
    expect((await kinds(a)).filter((k) => k === "fired")).toHaveLength(4);
  });

  it("fires a tick once when two firers race on it without the lock (the claim decides)", async () => {
    const a = setup();
    const b = a.twin();
    await a.service.create(scheduleInput({ overlap: "allow" }), { approvalSource: null });
    const stored = (await a.store.get("nightly"))!;
    const firer = (f: SchedulerFixture, owner: string) =>
      new TickFirer({
        store: f.store,
        agentQueue: f.queue,
        owner,
        claimLeaseMs: 60_000,
        claimTtlMs: HOUR,
      });
    const fa = firer(a, "a");
    const fb = firer(b, "b");
    const ticks = Array.from({ length: 20 }, (_, i) => at("2025-01-01T01:00:00Z") + i * HOUR);
    const results = await Promise.all(
      ticks.flatMap((tick) => [fa.fire(stored, tick, "fired", tick), fb.fire(stored, tick, "fired", tick)]),
    );
    expect(results.filter((r) => r === "fired")).toHaveLength(20);
    expect(results.filter((r) => r === "busy" || r === "already")).toHaveLength(20);
    expect(await a.jobIds()).toHaveLength(20);
    expect((await kinds(a)).filter((k) => k === "fired")).toHaveLength(20);
  });

  it("stops firing in a process whose lock lease lapsed and lets the new leader fire", async () => {
    const a = setup();
    const b = a.twin();
    await a.service.create(scheduleInput({ overlap: "allow" }), { approvalSource: null });
    const sa = a.scheduler();
    const sb = b.scheduler();
    expect((await sa.runDue(at("2025-01-01T01:00:01Z"))).leader).toBe(true);
    await a.store.redis.del(a.store.keys.lock); // the lease lapsed
    expect((await sb.runDue(at("2025-01-01T02:00:01Z"))).results).toEqual({ fired: 1 });
    const stale = await sa.runDue(at("2025-01-01T03:00:01Z"));
    expect(stale.leader).toBe(false);
    expect(sa.isLeader).toBe(false);
    expect(await a.jobIds()).toHaveLength(2);
  });
});

describe("Scheduler overlap policies", () => {
  it("records a tick as skipped while the previous run is active (skip), and fires again once it finished", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), { approvalSource: null });
    const s = f.scheduler();
    await s.runDue(at("2025-01-01T01:00:01Z"));
    const second = await s.runDue(at("2025-01-01T02:00:01Z"));
    expect(second.results).toEqual({ "skipped-overlap": 1 });
    await f.service.markScheduleRunFinished("nightly", "sched-nightly-1735693200000");
    expect((await s.runDue(at("2025-01-01T03:00:01Z"))).results).toEqual({ fired: 1 });
    expect(await kinds(f)).toEqual(["created", "fired", "skipped-overlap", "finished", "fired"]);
    expect(await f.jobIds()).toEqual(["sched-nightly-1735693200000", "sched-nightly-1735700400000"]);
  });

  it("treats a run whose job no longer exists as finished even if the worker never said so", async () => {
    const f = setup();
    await f.service.create(scheduleInput(), { approvalSource: null });
    const s = f.scheduler();
    await s.runDue(at("2025-01-01T01:00:01Z"));
    await (await f.queue.getJob("sched-nightly-1735693200000"))!.remove();
    expect((await s.runDue(at("2025-01-01T02:00:01Z"))).results).toEqual({ fired: 1 });
  });

  it("queues a tick behind the active run (queue) and releases it when that run finishes", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ overlap: "queue" }), { approvalSource: null });
    const s = f.scheduler();
    await s.runDue(at("2025-01-01T01:00:01Z"));
    expect((await s.runDue(at("2025-01-01T02:00:01Z"))).results).toEqual({ queued: 1 });
    expect((await s.runDue(at("2025-01-01T02:10:00Z"))).released).toBe(0);
    await f.service.markScheduleRunFinished("nightly", "sched-nightly-1735693200000");
    expect((await s.runDue(at("2025-01-01T02:20:00Z"))).released).toBe(1);
    expect(await f.jobIds()).toEqual(["sched-nightly-1735693200000", "sched-nightly-1735696800000"]);
    expect(await f.store.queuedTicks("nightly")).toEqual([]);
    expect(await kinds(f)).toEqual(["created", "fired", "queued", "finished", "released"]);
  });

  it("starts a run per tick regardless of active runs (allow)", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ overlap: "allow" }), { approvalSource: null });
    const s = f.scheduler();
    await s.runDue(at("2025-01-01T01:00:01Z"));
    await s.runDue(at("2025-01-01T02:00:01Z"));
    expect(await f.jobIds()).toHaveLength(2);
    expect((await f.store.activeRuns("nightly")).size).toBe(2);
  });
});

describe("Scheduler catch-up after a 3-tick outage", () => {
  // Created at 00:30, fires 01:00, then the process is down for the 02:00, 03:00 and 04:00 ticks
  // and comes back at 04:30 (all three more than lateAfterMs late).
  it.each([
    { policy: "none", max: 10, expected: [] as string[], missed: 3 },
    { policy: "latest", max: 10, expected: ["04"], missed: 2 },
    { policy: "all", max: 10, expected: ["02", "03", "04"], missed: 0 },
    { policy: "all", max: 2, expected: ["03", "04"], missed: 1 },
  ] as const)("catch-up $policy (max $max) runs $expected", async ({ policy, max, expected, missed }) => {
    const f = setup();
    await f.service.create(scheduleInput({ overlap: "allow", catchUp: policy, catchUpMax: max }), {
      approvalSource: null,
    });
    const s = f.scheduler();
    await s.runDue(at("2025-01-01T01:00:01Z"));
    const report = await s.runDue(at("2025-01-01T04:30:00Z"));
    expect(report.missed).toBe(missed);
    expect(report.results["caught-up"] ?? 0).toBe(expected.length);
    const ticks = expected.map((hh) => `sched-nightly-${at(`2025-01-01T${hh}:00:00Z`)}`);
    expect(await f.jobIds()).toEqual([`sched-nightly-${at("2025-01-01T01:00:00Z")}`, ...ticks].sort());
    expect(await f.store.nextTick("nightly")).toBe(at("2025-01-01T05:00:00Z"));
    // Nothing fires twice on the next pass.
    expect((await s.runDue(at("2025-01-01T04:45:00Z"))).results).toEqual({});
  });

  it("tells onMissed once about ticks its catch-up policy did not run (alerts' schedule_missed)", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ overlap: "allow", catchUp: "none" }), { approvalSource: null });
    const told: { id: string; count: number; newest: number; note: string }[] = [];
    const s = f.scheduler({
      onMissed: (schedule, missed, note) => {
        told.push({ id: schedule.id, count: missed.count, newest: missed.newest, note });
      },
    });
    await s.runDue(at("2025-01-01T01:00:01Z"));
    expect(told).toEqual([]);
    await s.runDue(at("2025-01-01T04:30:00Z"));
    expect(told).toEqual([
      {
        id: "nightly",
        count: 3,
        newest: at("2025-01-01T04:00:00Z"),
        note: "3 tick(s) from 2025-01-01T02:00:00.000Z not run (catch-up none)",
      },
    ]);
    await s.runDue(at("2025-01-01T04:45:00Z"));
    expect(told).toHaveLength(1);
  });

  it("runs an on-time tick as usual after downtime and counts only the older ones as missed (latest)", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ overlap: "allow" }), { approvalSource: null });
    const s = f.scheduler();
    await s.runDue(at("2025-01-01T01:00:01Z"));
    const report = await s.runDue(at("2025-01-01T04:00:10Z"));
    expect(report.results).toEqual({ fired: 1 });
    expect(report.missed).toBe(2);
  });
});

describe("Scheduler time zones, pause and jitter", () => {
  it("fires a half-hourly New York schedule once per wall-clock time across the November fall-back", async () => {
    const f = setup(at("2025-11-02T04:10:00Z"));
    await f.service.create(
      scheduleInput({ cron: "0,30 * * * *", timezone: "America/New_York", overlap: "allow" }),
      {
        approvalSource: null,
      },
    );
    const s = f.scheduler();
    for (let now = at("2025-11-02T04:15:00Z"); now <= at("2025-11-02T07:45:00Z"); now += 5 * 60_000) {
      await s.runDue(now);
    }
    const fired = (await f.jobIds()).map((id) => new Date(Number(id.split("-").pop())).toISOString());
    expect(fired.sort()).toEqual([
      "2025-11-02T04:30:00.000Z",
      "2025-11-02T05:00:00.000Z",
      "2025-11-02T05:30:00.000Z",
      "2025-11-02T07:00:00.000Z",
      "2025-11-02T07:30:00.000Z",
    ]);
  });

  it("fires a Berlin 02:30 schedule at 03:00 CEST on the night the clocks go forward", async () => {
    const f = setup(at("2025-03-29T12:00:00Z"));
    await f.service.create(scheduleInput({ cron: "30 2 * * *", timezone: "Europe/Berlin" }), {
      approvalSource: null,
    });
    expect(await f.store.nextTick("nightly")).toBe(at("2025-03-30T01:00:00Z"));
    const report = await f.scheduler().runDue(at("2025-03-30T01:00:00.050Z"));
    expect(report.results).toEqual({ fired: 1 });
    expect(await f.store.nextTick("nightly")).toBe(at("2025-03-31T00:30:00Z"));
  });

  it("does not fire while paused, and does not catch up the paused ticks on resume", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ catchUp: "all", overlap: "allow" }), { approvalSource: null });
    const s = f.scheduler();
    await f.service.pause("nightly", "ops");
    expect(await f.store.nextTick("nightly")).toBeNull();
    expect((await s.runDue(at("2025-01-01T03:00:01Z"))).results).toEqual({});
    f.clock.set(at("2025-01-01T03:10:00Z"));
    await f.service.resume("nightly", "ops");
    await s.runDue(at("2025-01-01T04:00:01Z"));
    expect(await f.jobIds()).toEqual([`sched-nightly-${at("2025-01-01T04:00:00Z")}`]);
  });

  it("delays a jittered run by a deterministic amount within the jitter", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ jitterSeconds: 600 }), { approvalSource: null });
    await f.scheduler().runDue(at("2025-01-01T01:00:01Z"));
    const job = await f.queue.getJob(`sched-nightly-${at("2025-01-01T01:00:00Z")}`);
    expect(job!.opts.delay).toBeGreaterThan(0);
    expect(job!.opts.delay).toBeLessThanOrEqual(600_000);
    expect(await job!.getState()).toBe("delayed");
  });
});
