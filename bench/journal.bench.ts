import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { Journal } from "../src/journal/index.js";
import { deleteKeysWithPrefix } from "../test/helpers/test-redis.js";
import { runStandalone } from "./standalone.js";

/**
 * Journal benchmark: (a) time to replay — read and decode — a 1,000-call journal, against
 * the same number of plain GETs of same-sized values in one pipeline; (b) claim+complete throughput
 * at concurrency 1 and 50, against plain GETs at the same concurrency. Ratios, because absolute
 * numbers depend on the machine; both sides run on the same Redis in the same process run.
 *
 * Standalone: `node bin/run-ts.js bench/journal.bench.ts` (REDIS_URL, or a redis-server it starts).
 * From a bench runner: call {@link runJournalBench}; the runner sets ECHO_BENCH_RUNNER=1 in its body
 * so this module does not also run on its own.
 */

/** Options for {@link runJournalBench}. */
export interface JournalBenchOptions {
  redisUrl: string;
  /** Calls in the replayed journal and claim+complete pairs per throughput run. Default 1000. */
  calls?: number;
  /** Size of each recorded result's output text, characters. Default 400. */
  resultChars?: number;
  /** Replay repetitions (median and p95 are reported). Default 30. */
  repeats?: number;
}

/** One throughput measurement against its baseline. */
export interface ThroughputFigure {
  concurrency: number;
  /** claim+complete pairs per second. */
  pairsPerSec: number;
  /** plain GETs per second at the same concurrency. */
  baselineGetsPerSec: number;
  /** pairsPerSec / baselineGetsPerSec (each pair is two round trips, so ~0.5 is the ceiling). */
  ratio: number;
}

/** What {@link runJournalBench} measured. */
export interface JournalBenchResult {
  calls: number;
  replay: {
    medianMs: number;
    p95Ms: number;
    /** Median of the same number of GETs of same-sized values in one pipeline. */
    baselineMedianMs: number;
    ratio: number;
    targetMs: number;
    withinTarget: boolean;
  };
  throughput: ThroughputFigure[];
}

const REPLAY_TARGET_MS = 200;
const ROUNDS = 3;

/** Runs the journal benchmark against `redisUrl` and removes its keys afterwards. */
export async function runJournalBench(options: JournalBenchOptions): Promise<JournalBenchResult> {
  const calls = options.calls ?? 1000;
  const repeats = options.repeats ?? 30;
  const result = { success: true, output: "x".repeat(options.resultChars ?? 400), errorKind: null };
  const prefix = `bench:journal:${randomBytes(4).toString("hex")}`;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  try {
    const journal = new Journal({ redis, keyPrefix: prefix, retentionMs: 3_600_000 });
    const owner = "bench-worker";
    const pair = async (runId: string, i: number) => {
      await journal.claim({ runId, key: `tool:${i}`, owner, leaseMs: 60_000 });
      await journal.complete({ runId, key: `tool:${i}`, owner, result });
    };

    const baselineValue = JSON.stringify(result);
    const getKeys = Array.from({ length: calls }, (_, i) => `${prefix}:get:${i}`);
    await redis.mset(...getKeys.flatMap((key) => [key, baselineValue]));

    // Warm-up: script loading, connection, JIT.
    await inParallel(50, 1000, (i) => pair("warmup", i));
    await inParallel(50, 1000, (i) => redis.get(getKeys[i % calls]!));

    // Alternating rounds, median of each, so drift on a busy machine hits both sides alike.
    const throughput: ThroughputFigure[] = [];
    for (const concurrency of [1, 50]) {
      const pairRates: number[] = [];
      const getRates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const runId = `throughput-${concurrency}-${round}`;
        pairRates.push(rate(calls, await timed(() => inParallel(concurrency, calls, (i) => pair(runId, i)))));
        getRates.push(
          rate(calls, await timed(() => inParallel(concurrency, calls, (i) => redis.get(getKeys[i]!)))),
        );
      }
      const pairsPerSec = percentile(pairRates, 0.5);
      const baselineGetsPerSec = percentile(getRates, 0.5);
      throughput.push({
        concurrency,
        pairsPerSec,
        baselineGetsPerSec,
        ratio: pairsPerSec / baselineGetsPerSec,
      });
    }

    // The concurrency-1 run left a complete 1,000-call journal behind: replay it.
    const replayRun = "throughput-1-0";
    const check = await journal.readRun(replayRun);
    if (check.records.size !== calls)
      throw new Error(`expected ${calls} records, read ${check.records.size}`);
    const replayTimes: number[] = [];
    const baselineTimes: number[] = [];
    for (let i = 0; i < repeats; i++) {
      replayTimes.push(await timed(() => journal.readRun(replayRun)));
      baselineTimes.push(
        await timed(async () => {
          const pipeline = redis.pipeline();
          for (const key of getKeys) pipeline.get(key);
          const replies = await pipeline.exec();
          for (const [err, value] of replies ?? []) if (err || typeof value !== "string") throw err;
        }),
      );
    }
    const medianMs = percentile(replayTimes, 0.5);
    const baselineMedianMs = percentile(baselineTimes, 0.5);
    return {
      calls,
      replay: {
        medianMs,
        p95Ms: percentile(replayTimes, 0.95),
        baselineMedianMs,
        ratio: medianMs / baselineMedianMs,
        targetMs: REPLAY_TARGET_MS,
        withinTarget: medianMs <= REPLAY_TARGET_MS,
      },
      throughput,
    };
  } finally {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  }
}

/** A human-readable report of {@link runJournalBench}'s result. */
export function formatJournalBench(result: JournalBenchResult): string {
  const r = result.replay;
  const lines = [
    `journal replay of ${result.calls} calls: median ${r.medianMs.toFixed(1)} ms, p95 ${r.p95Ms.toFixed(1)} ms ` +
      `(target <= ${r.targetMs} ms: ${r.withinTarget ? "met" : "MISSED"}); ` +
      `${result.calls} pipelined GETs: ${r.baselineMedianMs.toFixed(1)} ms; ratio ${r.ratio.toFixed(2)}x`,
  ];
  for (const t of result.throughput) {
    lines.push(
      `claim+complete at concurrency ${t.concurrency}: ${Math.round(t.pairsPerSec)} pairs/s vs ` +
        `${Math.round(t.baselineGetsPerSec)} GETs/s; ratio ${t.ratio.toFixed(2)}`,
    );
  }
  return lines.join("\n");
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

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function rate(count: number, ms: number): number {
  return (count / ms) * 1000;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

runStandalone("journal", async (redisUrl) => formatJournalBench(await runJournalBench({ redisUrl })));
