import { randomBytes } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { bullPrefix, openAgentQueue } from "../src/queue/index.js";
import { type AgentQueuePort, Scheduler, ScheduleService, ScheduleStore } from "../src/scheduler/index.js";
import { deleteKeysWithPrefix } from "../test/helpers/test-redis.js";
import { runStandalone } from "./standalone.js";

/**
 * Scheduler benchmark: firing lag — scheduled instant → agent job enqueued (the add or
 * addBulk that carried it resolved, so the job is in Redis; a worker with a free slot starts it
 * from there) — p50/p99 with N schedules (default 5,000) that all fire on the same ticks, the worst
 * case: every tick enqueues N jobs at once. Baseline in the same run: N plain BullMQ `add`s issued
 * at one instant at concurrency 64, latency = add resolved − instant. The ratio shows what the
 * claim, the overlap policy and the history cost on top of BullMQ.
 *
 * Standalone: `node bin/run-ts.js bench/scheduler.bench.ts` (REDIS_URL, or a redis-server it starts).
 * From a bench runner: call {@link runSchedulerBench}; the runner sets ECHO_BENCH_RUNNER=1 in its
 * body so this module does not also run on its own.
 */

/** Options for {@link runSchedulerBench}. */
export interface SchedulerBenchOptions {
  redisUrl: string;
  /** Schedules, all firing on the same ticks. Default 5000. */
  schedules?: number;
  /** Ticks measured. Default 3. */
  ticks?: number;
  /** Seconds between ticks (a 6-field cron). Default 15. */
  periodSeconds?: number;
  /** Schedules fired in parallel, and the baseline's concurrency. Default 64. */
  concurrency?: number;
}

/** Percentiles of a latency sample, ms. */
export interface LagFigure {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What {@link runSchedulerBench} measured. */
export interface SchedulerBenchResult {
  schedules: number;
  ticks: number;
  /** Scheduled instant → job enqueued (the add that carried it resolved). */
  firingLag: LagFigure;
  /** The same, per measured tick (the first is every schedule's first firing in the process). */
  perTick: LagFigure[];
  /** Plain `add` of the same number of jobs issued at one instant (twice: before and after). */
  baselineAdd: LagFigure;
  /** firingLag.p50 / baselineAdd.p50 and the same for p99. */
  ratioP50: number;
  ratioP99: number;
}

/** Runs the scheduler benchmark against `redisUrl` and removes its keys afterwards. */
export async function runSchedulerBench(options: SchedulerBenchOptions): Promise<SchedulerBenchResult> {
  const count = options.schedules ?? 5000;
  const ticks = options.ticks ?? 3;
  const period = options.periodSeconds ?? 15;
  const concurrency = options.concurrency ?? 64;
  const prefix = `bench-sched-${randomBytes(4).toString("hex")}`;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const agentQueue = openAgentQueue(redis, prefix);
  const baselineQueue = new Queue("baseline", { connection: redis, prefix: bullPrefix(prefix) });
  try {
    const store = new ScheduleStore({ redis, keyPrefix: prefix });
    const service = new ScheduleService({ store, agentQueue });
    // When each run's job was in Redis: the moment the call that added it resolved.
    const enqueuedAt = new Map<string, number>();
    const timedQueue: AgentQueuePort = {
      add: async (...args: Parameters<Queue["add"]>) => {
        const job = await agentQueue.add(...args);
        enqueuedAt.set(job.id ?? "", Date.now());
        return job;
      },
      addBulk: async (jobs: Parameters<Queue["addBulk"]>[0]) => {
        const added = await agentQueue.addBulk(jobs);
        const at = Date.now();
        for (const job of added) enqueuedAt.set(job.id ?? "", at);
        return added;
      },
      getJobState: (id: string) => agentQueue.getJobState(id),
    };
    await inParallel(concurrency, count, (i) =>
      service.create(
        {
          v: 1,
          id: `bench-${i}`,
          cron: `*/${period} * * * * *`,
          timezone: "UTC",
          agent: { model: "scripted", task: "bench", maxSteps: 1, workspace: "/tmp/bench" },
          overlap: "allow",
          owner: "bench",
          source: { kind: "cronjob" },
        },
        { approvalSource: null },
      ),
    );

    // Baseline: N adds issued at one instant, latency of each; once before and once after the
    // firing, so a change of machine load during the run weighs on both figures alike.
    const baselineLags: number[] = [];
    const baseline = async (round: number) => {
      const t0 = performance.now();
      await inParallel(concurrency, count, async (i) => {
        await baselineQueue.add("run", { i }, { jobId: `baseline-${round}-${i}` });
        baselineLags.push(performance.now() - t0);
      });
    };
    await baseline(0);

    // Firing: start after the next tick boundary, measure the following `ticks` ticks.
    const scheduler = new Scheduler({ store, agentQueue: timedQueue, pollMs: 20, concurrency });
    const periodMs = period * 1000;
    const firstTick = Math.ceil((Date.now() + 1000) / periodMs) * periodMs;
    const lastTick = firstTick + (ticks - 1) * periodMs;
    // Passes before the first tick only move watermarks; the timed ones start at it.
    scheduler.start();
    // Done when every schedule's next tick is past the last measured one (phase 1 enqueues first).
    await waitUntil(
      async () => Date.now() > lastTick && (await redis.zcount(store.keys.due, "-inf", lastTick)) === 0,
      lastTick,
    );
    await scheduler.stop();
    await baseline(1);

    const jobs = (await agentQueue.getJobs(["waiting", "delayed"], 0, -1)).filter(
      (job) => job.data.origin.scheduledFor >= firstTick && job.data.origin.scheduledFor <= lastTick,
    );
    const lagOf = (job: (typeof jobs)[number]) =>
      (enqueuedAt.get(job.id ?? "") ?? Number.NaN) - job.data.origin.scheduledFor;
    const firingLag = figure(jobs.map(lagOf));
    // The first measured tick is also the first firing of every schedule in this process (cold).
    const perTick = Array.from({ length: ticks }, (_, t) =>
      figure(jobs.filter((job) => job.data.origin.scheduledFor === firstTick + t * periodMs).map(lagOf)),
    );
    const baselineAdd = figure(baselineLags);
    return {
      schedules: count,
      ticks,
      firingLag,
      perTick,
      baselineAdd,
      ratioP50: firingLag.p50Ms / baselineAdd.p50Ms,
      ratioP99: firingLag.p99Ms / baselineAdd.p99Ms,
    };
  } finally {
    await agentQueue.close();
    await baselineQueue.close();
    await deleteKeysWithPrefix(redis, prefix);
    await deleteKeysWithPrefix(redis, `{${prefix}}`);
    redis.disconnect();
  }
}

/** A human-readable report of {@link runSchedulerBench}'s result. */
export function formatSchedulerBench(result: SchedulerBenchResult): string {
  const f = result.firingLag;
  const b = result.baselineAdd;
  return [
    `scheduler firing lag, ${result.schedules} schedules x ${result.ticks} ticks (${f.samples} runs, all due at once): ` +
      `p50 ${f.p50Ms.toFixed(0)} ms, p99 ${f.p99Ms.toFixed(0)} ms, max ${f.maxMs.toFixed(0)} ms; ` +
      `per tick p50/p99: ${(result.perTick ?? []).map((t) => `${t.p50Ms.toFixed(0)}/${t.p99Ms.toFixed(0)}`).join(", ")} ms`,
    `plain BullMQ add of ${result.schedules} jobs issued at once (before and after the firing): p50 ${b.p50Ms.toFixed(0)} ms, p99 ${b.p99Ms.toFixed(0)} ms; ` +
      `ratio p50 ${result.ratioP50.toFixed(2)}x, p99 ${result.ratioP99.toFixed(2)}x`,
  ].join("\n");
}

function figure(values: readonly number[]): LagFigure {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return {
    samples: sorted.length,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

async function waitUntil(done: () => Promise<boolean>, deadline: number): Promise<void> {
  while (!(await done())) {
    if (Date.now() > deadline + 60_000)
      throw new Error("scheduler bench: the ticks were not all enqueued in time");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function inParallel(
  concurrency: number,
  total: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < total) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
}

runStandalone("scheduler", async (redisUrl) => formatSchedulerBench(await runSchedulerBench({ redisUrl })));
