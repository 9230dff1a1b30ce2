import type { Cluster, Redis } from "ioredis";
import type { Logger } from "../logging/index.js";
import type { CounterFamily, RunOutcomeLabel } from "./families.js";
import { MetricsKeys } from "./keys.js";

/** How long a run's counted outcome is remembered (a crashed run is re-run well within this). */
const SEEN_RUN_TTL_MS = 7 * 24 * 3600 * 1000;

// Count a run's outcome once: the marker and the increment in one step.
const COUNT_ONCE = `
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then
  redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
  return 1
end
return 0`;

/** Options of {@link RunnerMetrics}. */
export interface RunnerMetricsOptions {
  redis: Redis | Cluster;
  keyPrefix: string;
  /** Where a failed write is reported; metrics never fail the work they count. */
  logger: Logger;
}

/**
 * The write side of the metrics, used by the worker and the scheduler in whatever process they run:
 * every count is an HINCRBY on a Redis hash, so the HTTP process reads the same numbers however the
 * parts are split across processes or machines. A failed write is logged and lost — a run never
 * fails because a counter could not be written.
 */
export class RunnerMetrics {
  readonly keys: MetricsKeys;
  readonly #redis: Redis | Cluster;
  readonly #logger: Logger;

  constructor(options: RunnerMetricsOptions) {
    this.keys = new MetricsKeys(options.keyPrefix);
    this.#redis = options.redis;
    this.#logger = options.logger;
  }

  /** A run ended for good; counted once per run even if a crash makes a worker finish it again. */
  runEnded(runId: string, outcome: RunOutcomeLabel): Promise<void> {
    return this.#quietly("runs", async () => {
      await this.#redis.eval(
        COUNT_ONCE,
        2,
        this.keys.seenRun(runId),
        this.keys.counter("runs"),
        JSON.stringify([outcome]),
        SEEN_RUN_TTL_MS,
      );
    });
  }

  /** An attempt failed and the run will be tried again. */
  runRetrying(): Promise<void> {
    return this.#inc("run_retries", []);
  }

  /** A run parked (approval, child, claim held elsewhere): it waits in `delayed` until `wakeAt`. */
  runParked(jobId: string, wakeAt: number): Promise<void> {
    return this.#quietly("run_parks", async () => {
      // Two slots (the queue's and the metrics'), so two commands rather than one MULTI.
      await Promise.all([
        this.#redis.zadd(this.keys.parked("agent"), wakeAt, jobId),
        this.#redis.hincrby(this.keys.counter("run_parks"), "[]", 1),
      ]);
    });
  }

  /** A job was picked up by a worker: whatever it waited for, it is not parked any more. */
  jobStarted(jobId: string): Promise<void> {
    return this.#quietly("parked", async () => {
      await this.#redis.zrem(this.keys.parked("agent"), jobId);
    });
  }

  /** A gate decision as the audit trail recorded it. */
  toolDecision(tool: string, verdict: string, step: number): Promise<void> {
    return this.#inc("tool_calls", [tool, verdict, String(step)]);
  }

  /** A tool execution and how it ended (success or the error kind). */
  toolExecution(tool: string, outcome: string): Promise<void> {
    return this.#inc("tool_executions", [tool, outcome]);
  }

  /**
   * One scheduler pass: each tick result (fired, caught-up, skipped-overlap, queued, already, busy,
   * lost, gone), plus ticks missed by the catch-up policy and queued ticks released to run.
   */
  schedulePass(report: {
    results: Readonly<Partial<Record<string, number>>>;
    missed: number;
    released: number;
  }): Promise<void> {
    const counts: [string, number][] = [
      ...Object.entries(report.results),
      ["missed", report.missed],
      ["released", report.released],
    ].filter((e): e is [string, number] => typeof e[1] === "number" && e[1] > 0);
    if (counts.length === 0) return Promise.resolve();
    return this.#quietly("schedule_ticks", async () => {
      const multi = this.#redis.multi();
      for (const [result, n] of counts) {
        multi.hincrby(this.keys.counter("schedule_ticks"), JSON.stringify([result]), n);
      }
      await multi.exec();
    });
  }

  #inc(family: CounterFamily, labels: readonly string[]): Promise<void> {
    return this.#quietly(family, async () => {
      await this.#redis.hincrby(this.keys.counter(family), JSON.stringify(labels), 1);
    });
  }

  async #quietly(what: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      this.#logger.warn({ err: (err as Error).message, metric: what }, "metrics write failed; count lost");
    }
  }
}
