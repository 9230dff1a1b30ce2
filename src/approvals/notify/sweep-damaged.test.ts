import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { createLogger } from "../../logging/index.js";
import { ManualClock } from "../../shared/index.js";
import { ApprovalStore } from "../store/index.js";
import { ApprovalNotifications } from "./notifications.js";
import { LogNotifier } from "./notifier.js";

/**
 * The worker's sweep over pending requests (reminders, escalations, expiry) with a damaged request
 * among them: each step passes the damaged one over and does its work for the others. Before, one
 * request key of another type failed the Lua scripts and the reads for every request after it, so
 * nothing was reminded, escalated or expired any more.
 */

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
let redis: Redis;
const prefixes: string[] = [];
let n = 0;

beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function setup(digestWindowMs = 0) {
  const prefix = uniquePrefix("sweep-damaged");
  prefixes.push(prefix);
  const clock = new ManualClock(T0);
  const lines: string[] = [];
  const logger = createLogger({
    level: "info",
    format: "json",
    destination: { write: (l: string) => lines.push(l) },
  });
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock,
    policy: { waitTimeoutMs: HOUR, reminderBeforeMs: 10 * 60_000, approvers: [{ id: "alice", email: null }] },
  });
  const notifications = new ApprovalNotifications({
    store,
    notifiers: [new LogNotifier(logger)],
    publicUrl: "https://runner.example.test",
    logger,
    escalation: { afterMs: 30 * 60_000, to: ["alice"] },
    digestWindowMs,
  });
  const register = async (notify = true) => {
    n += 1;
    const { record } = await store.register({
      runId: `run-${n}`,
      jobId: `job-${n}`,
      traceId: "trace",
      idempotencyKey: `k-${n}`,
      tool: "exec",
      args: { command: `echo ${n}` },
      risk: "exec",
      reason: "shell needs a person",
      agent: "nightly",
      channel: "cron",
      scheduleId: `nightly-${prefix}`,
    });
    if (notify) await notifications.notify(record.id);
    return record;
  };
  // Registered first, so every index lists it before the healthy one.
  const damaged = await register();
  const healthy = await register();
  await redis.del(store.keys.request(damaged.id));
  await redis.set(store.keys.request(damaged.id), "overwritten");
  return { store, clock, notifications, register, damaged, healthy, log: () => lines.join("") };
}

describe("the approval sweep with a damaged request", () => {
  it("reminds the healthy request", async () => {
    const { clock, notifications, healthy } = await setup();
    clock.set(healthy.deadline - 5 * 60_000);
    expect(await notifications.remindDue()).toEqual([healthy.id]);
  });

  it("escalates the healthy request and logs the damaged one it passed over", async () => {
    const { clock, notifications, damaged, healthy, log } = await setup();
    clock.set(healthy.requestedAt + 31 * 60_000);
    expect(await notifications.escalateDue()).toEqual([healthy.id]);
    expect(log()).toContain(damaged.id);
  });

  it("expires the overdue healthy request", async () => {
    const { store, clock, healthy } = await setup();
    clock.set(healthy.deadline + 1);
    expect(await store.expireDue()).toEqual([healthy.id]);
    expect((await store.get(healthy.id))?.status).toBe("expired");
  });

  it("sends a schedule's digest to its healthy requests and names the damaged one", async () => {
    const { store, clock, notifications, register } = await setup(60_000);
    // Two more of the same schedule within its window: gathered into the digest.
    const [a, b] = [await register(false), await register(false)];
    for (const r of [a, b]) expect((await notifications.notify(r!.id)).status).toBe("digested");
    await redis.del(store.keys.request(a!.id));
    await redis.set(store.keys.request(a!.id), "overwritten");
    clock.advance(60_000);
    const outcomes = await notifications.retryUnsent();
    expect(outcomes).toContainEqual(expect.objectContaining({ id: b!.id, ok: true }));
    expect(outcomes).toContainEqual(expect.objectContaining({ id: a!.id, ok: false }));
    expect((await store.get(b!.id))?.notifiedAt).not.toBeNull();
  });
});
