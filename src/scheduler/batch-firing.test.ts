import type { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { type SchedulerFixture, scheduleInput, schedulerFixture } from "./test-fixture.js";
import { TickFirer } from "./tick-firer.js";

const at = (iso: string) => Date.parse(iso);
const TICK = at("2025-01-01T01:00:00Z");
const redis: Redis = testRedisClient();
const fixtures: SchedulerFixture[] = [];

function setup(): SchedulerFixture {
  const f = schedulerFixture(redis, uniquePrefix("batch"), at("2025-01-01T00:30:00Z"));
  fixtures.push(f);
  return f;
}

function firer(f: SchedulerFixture, owner: string): TickFirer {
  return new TickFirer({
    store: f.store,
    agentQueue: f.queue,
    owner,
    claimLeaseMs: 60_000,
    claimTtlMs: 86_400_000,
  });
}

afterEach(async () => {
  for (const f of fixtures.splice(0)) {
    await f.close();
    await deleteKeysWithPrefix(redis, f.prefix);
    await deleteKeysWithPrefix(redis, `{${f.prefix}}`);
  }
});
afterAll(() => redis.disconnect());

describe("firing ticks in batches", () => {
  it("records each tick of a batch as the one-tick path would: fired, skipped, busy, already", async () => {
    const f = setup();
    const ids = ["allow", "skip-active", "skip-gone", "held", "done"] as const;
    for (const id of ids) {
      await f.service.create(scheduleInput({ id, overlap: id === "allow" ? "allow" : "skip" }), {
        approvalSource: null,
      });
    }
    // skip-active: a run whose job is still waiting; skip-gone: a run whose job no longer exists.
    await f.queue.add("run", {}, { jobId: "earlier-run" });
    await f.store.addActive("skip-active", "earlier-run", TICK - 3_600_000);
    await f.store.addActive("skip-gone", "vanished-run", TICK - 3_600_000);
    // held: another process holds the claim; done: another process fired it already.
    await f.store.claimTick("held", TICK, "other", 60_000, TICK);
    expect(await firer(f, "other").fire((await f.store.get("done"))!, TICK, "fired", TICK)).toBe("fired");

    const stored = (await f.store.readMany(ids)).found;
    const results = await firer(f, "me").fireBatch(
      stored.map((s) => ({ stored: s!, tick: TICK })),
      "fired",
      TICK,
    );
    expect(results).toEqual(["fired", "skipped-overlap", "fired", "busy", "already"]);
    expect((await f.jobIds()).filter((id) => id.startsWith("sched-")).sort()).toEqual(
      [`sched-allow-${TICK}`, `sched-done-${TICK}`, `sched-skip-gone-${TICK}`].sort(),
    );
    expect((await f.store.history("skip-gone", 10)).map((e) => e.kind)).toEqual([
      "fired",
      "finished",
      "created",
    ]);
    // A second batch of the same ticks finds every claim taken and enqueues nothing more.
    expect(
      await firer(f, "me").fireBatch(
        stored.map((s) => ({ stored: s!, tick: TICK })),
        "fired",
        TICK,
      ),
    ).toEqual(["already", "already", "already", "busy", "already"]);
    expect((await f.jobIds()).filter((id) => id.startsWith("sched-"))).toHaveLength(3);
  });

  it("fires every due schedule once across several batches and lanes, and never again for the same tick", async () => {
    const f = setup();
    const ids = Array.from({ length: 11 }, (_, i) => `s${i}`);
    for (const id of ids)
      await f.service.create(scheduleInput({ id, overlap: "allow" }), { approvalSource: null });
    const first = f.scheduler({ batchSize: 3, parallelBatches: 2 });
    expect((await first.runDue(TICK + 1000)).results).toEqual({ fired: 11 });
    await first.stop();
    // Another leader at the same instant (its pass starts over from the due index).
    const second = f.scheduler({ batchSize: 4, parallelBatches: 3 });
    await f.store.advance("s0", 1, TICK - 1, TICK);
    expect((await second.runDue(TICK + 2000)).results).toEqual({ already: 1 });
    expect(await f.jobIds()).toEqual(ids.map((id) => `sched-${id}-${TICK}`).sort());
    for (const id of ids) expect(await f.store.nextTick(id)).toBe(TICK + 3_600_000);
  });
});

describe("a tick that fails inside a batch", () => {
  it("fails alone: the rest of the batch fires and is recorded, the failed tick stays unrecorded for a later pass", async () => {
    const f = setup();
    for (const id of ["a", "bad", "c"]) {
      await f.service.create(scheduleInput({ id }), { approvalSource: null });
    }
    // A corrupted state key (wrong type) makes the overlap look at "bad" fail with WRONGTYPE.
    await redis.set(f.store.keys.active("bad"), "not a hash");
    const scheduler = f.scheduler({ batchSize: 10 });
    const report = await scheduler.runDue(TICK + 1000);
    expect(report.results).toEqual({ fired: 2 });
    expect(report.errors).toBe(1);
    expect((await f.jobIds()).filter((id) => id.startsWith("sched-"))).toEqual([
      `sched-a-${TICK}`,
      `sched-c-${TICK}`,
    ]);
    // Not recorded and not advanced: once the state is repaired and the claim has lapsed, it fires.
    expect((await f.store.history("bad", 10)).map((e) => e.kind)).toEqual(["created"]);
    expect(await f.store.nextTick("bad")).toBe(TICK);
    await redis.del(f.store.keys.active("bad"), f.store.keys.claim("bad", TICK));
    const later = await scheduler.runDue(TICK + 2000);
    expect(later.results).toEqual({ fired: 1 });
    expect(await f.jobIds()).toContain(`sched-bad-${TICK}`);
  });
});

describe("reading due schedules", () => {
  it("decodes an unchanged schedule once and a changed one again", async () => {
    const f = setup();
    await f.service.create(scheduleInput({ id: "a" }), { approvalSource: null });
    const [first] = (await f.store.readMany(["a"])).found;
    const [again] = (await f.store.readMany(["a"])).found;
    expect(again).toBe(first);
    await f.service.update("a", { cron: "15 * * * *" }, { approvalSource: null });
    const [changed] = (await f.store.readMany(["a"])).found;
    expect(changed).not.toBe(first);
    expect(changed?.schedule.cron).toBe("15 * * * *");
    expect(await f.store.dueBetween(TICK - 1, TICK + 3_600_000, 10)).toEqual(["a"]);
  });
});
