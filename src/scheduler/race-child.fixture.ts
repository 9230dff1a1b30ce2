import { Redis } from "ioredis";
import { openAgentQueue } from "../queue/index.js";
import { ScheduleStore } from "./schedule-store.js";
import { Scheduler } from "./scheduler.js";
import { type FireResult, TickFirer } from "./tick-firer.js";

/**
 * A child process of two-processes.test.ts: waits on a Redis list for the go signal, then fires the
 * same ticks as its twin (directly, without the lock), then runs scheduler passes at the instants of
 * the next ticks, as its twin does, and prints what it did as one JSON line.
 * argv: redisUrl prefix owner firstTick ticks stepMs
 */
const [redisUrl, prefix, owner, first, count, step] = process.argv.slice(2);
const redis = new Redis(redisUrl!, { maxRetriesPerRequest: null });
const store = new ScheduleStore({ redis, keyPrefix: prefix! });
const queue = openAgentQueue(redis, prefix!);
try {
  const stored = await store.get("nightly");
  if (!stored) throw new Error("schedule nightly missing");
  const firer = new TickFirer({
    store,
    agentQueue: queue,
    owner: owner!,
    claimLeaseMs: 60_000,
    claimTtlMs: 3_600_000,
  });
  const scheduler = new Scheduler({ store, agentQueue: queue, owner: owner!, lockLeaseMs: 60_000 });
  const ticks = Array.from({ length: Number(count) }, (_, i) => Number(first) + i * Number(step));
  process.stdout.write("ready\n");
  await redis.blpop(`${prefix}:go:${owner}`, 30);
  const fired: FireResult[] = [];
  for (const tick of ticks) fired.push(await firer.fire(stored, tick, "fired", tick));
  const passes: number[] = [];
  for (const tick of ticks) {
    const report = await scheduler.runDue(tick + Number(count) * Number(step) + 1);
    passes.push(report.results.fired ?? 0);
  }
  await scheduler.stop();
  process.stdout.write(`${JSON.stringify({ owner, fired, passes })}\n`);
} finally {
  await queue.close();
  redis.disconnect();
}
