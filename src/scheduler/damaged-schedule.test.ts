import type { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { configEntry, type SchedulerFixture, scheduleInput, schedulerFixture } from "./test-fixture.js";

/**
 * One stored schedule that cannot be read (its definition is not JSON, or its grant does not
 * decode) stops neither a list, nor the config reconcile, nor the firing of the other schedules;
 * it is named with what is wrong and never fires.
 */
const at = (iso: string) => Date.parse(iso);
const redis: Redis = testRedisClient();
const fixtures: SchedulerFixture[] = [];

async function setup(): Promise<SchedulerFixture> {
  const f = schedulerFixture(redis, uniquePrefix("sched-damaged"), at("2025-01-01T00:30:00Z"));
  fixtures.push(f);
  for (const id of ["a", "bad", "b"]) await f.service.create(scheduleInput({ id }), { approvalSource: null });
  await redis.hset(f.store.keys.defs, "bad", "{not json");
  return f;
}

afterEach(async () => {
  for (const f of fixtures.splice(0)) {
    await f.close();
    await deleteKeysWithPrefix(redis, f.prefix);
    await deleteKeysWithPrefix(redis, `{${f.prefix}}`);
  }
});
afterAll(() => redis.disconnect());

describe("a damaged stored schedule", () => {
  it("is named with what is wrong while the readable schedules are listed", async () => {
    const f = await setup();
    await redis.hset(f.store.keys.grants, "b", '{"v":1,"status":"bogus"}');
    const { views, damaged } = await f.service.listWithDamaged();
    expect(views.map((v) => v.schedule.id)).toEqual(["a"]);
    expect(damaged).toEqual([
      {
        id: "b",
        code: "SCHEDULE_INVALID",
        message: expect.stringContaining("stored grant of b does not match its schema"),
      },
      {
        id: "bad",
        code: "SCHEDULE_INVALID",
        message: expect.stringMatching(/stored schedule bad is not JSON; it does not fire .*\(HDEL\)/),
      },
    ]);
    expect((await f.service.list()).map((v) => v.schedule.id)).toEqual(["a"]);
  });

  it("stops neither the config reconcile nor the firing of the others, and is neither overwritten nor fired", async () => {
    const f = await setup();
    const scheduler = f.scheduler({
      configSchedules: [configEntry({ id: "c" }), configEntry({ id: "bad" })],
    });
    const first = await scheduler.runDue(at("2025-01-01T00:45:00Z"));
    expect(first.reconciled).toMatchObject({
      added: ["c"],
      removed: [],
      skipped: [{ index: 1, id: "bad", field: "id", message: expect.stringContaining("cannot be read") }],
      damaged: [{ id: "bad", code: "SCHEDULE_INVALID" }],
    });
    const pass = await scheduler.runDue(at("2025-01-01T01:00:00.200Z"));
    expect(pass.results).toEqual({ fired: 3 });
    expect(pass.errors).toBe(1);
    expect(await f.jobIds()).toEqual(
      ["a", "b", "c"].map((id) => `sched-${id}-${at("2025-01-01T01:00:00Z")}`).sort(),
    );
    expect(await redis.hget(f.store.keys.defs, "bad")).toBe("{not json");
    // The next tick of the others is set, and the next pass deals with them again (their runs of
    // 01:00 are still active: no worker runs here, so overlap `skip` skips them).
    expect(await f.store.nextTick("a")).toBe(at("2025-01-01T02:00:00Z"));
    const later = await scheduler.runDue(at("2025-01-01T02:00:00.200Z"));
    expect(later).toMatchObject({ results: { "skipped-overlap": 3 }, errors: 1 });
  });
});
