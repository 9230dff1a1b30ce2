import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import type { Logger } from "../logging/index.js";
import { luaScript } from "../lua/index.js";
import { type Clock, systemClock } from "../shared/index.js";
import type { CounterFamily, ReapReasonLabel, RunOutcomeLabel } from "./families.js";
import { MetricsKeys } from "./keys.js";

/** How long a run's counted outcome is remembered (a crashed run is re-run well within this). */
const SEEN_RUN_TTL_MS = 7 * 24 * 3600 * 1000;

// Count a run's outcome once: the marker and the increment in one step.
const COUNT_ONCE = luaScript(import.meta.url, "countRunOnce-2.lua").lua;

/** How many days a counted decision is remembered (the day sets: today's and the days before). */
export const DECISION_SEEN_DAYS = 7;
const DAY_MS = 24 * 3600 * 1000;

// Count a tool-call decision once per run, call, verdict and step (KEYS and ARGV in its file).
const COUNT_DECISION_ONCE = luaScript(import.meta.url, "countDecisionOnce.lua").lua;

// Count a run's usage once: the marker, then one HINCRBYFLOAT per family (ARGV: ttl, field, then
// family key index / amount pairs follow KEYS[2..]).
const COUNT_USAGE_ONCE = luaScript(import.meta.url, "countUsageOnce.lua").lua;

/** What a finished run consumed, for the per-agent, per-model series. */
export interface RunUsageCounts {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  activeSeconds: number;
  retries: number;
}

/** Options of {@link RunnerMetrics}. */
export interface RunnerMetricsOptions {
  redis: Redis | Cluster;
  keyPrefix: string;
  /** Where a failed write is reported; metrics never fail the work they count. */
  logger: Logger;
  /** Which day a decision is remembered under. Default the system clock. */
  clock?: Clock;
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
  readonly #clock: Clock;

  constructor(options: RunnerMetricsOptions) {
    this.keys = new MetricsKeys(options.keyPrefix);
    this.#redis = options.redis;
    this.#logger = options.logger;
    this.#clock = options.clock ?? systemClock;
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

  /**
   * A gate decision as the audit trail recorded it, counted once per run, call (idempotency key),
   * verdict and step: a replay that decides the same call the same way again is not a new call.
   */
  toolDecision(
    tool: string,
    verdict: string,
    step: number,
    call: { runId: string; idempotencyKey: string },
  ): Promise<void> {
    return this.#quietly("tool_calls", async () => {
      const now = this.#clock.now();
      const today = Math.floor(now / DAY_MS);
      const { member, shard } = decisionSeenMember(call.runId, call.idempotencyKey, verdict, step);
      const before = previousDecisionSeenMember(call.runId, call.idempotencyKey, verdict, step);
      const dayNumbers = Array.from({ length: DECISION_SEEN_DAYS + 1 }, (_, i) => today - i);
      await this.#redis.eval(
        COUNT_DECISION_ONCE,
        2 + 2 * DECISION_SEEN_DAYS + 2,
        this.keys.counter("tool_calls"),
        ...dayNumbers.map((day) => this.keys.seenDecisionsIn(day, shard)),
        ...dayNumbers.map((day) => this.keys.seenDecisionsOn(day, before[0]!)),
        this.keys.seenDecisions(call.runId),
        member,
        JSON.stringify([tool, verdict, String(step)]),
        String((today + 1 + DECISION_SEEN_DAYS) * DAY_MS - now),
        legacyDecisionSeenField(call.idempotencyKey, verdict, step),
        JSON.stringify([call.idempotencyKey, verdict, step]),
        before,
        DECISION_SEEN_DAYS,
      );
    });
  }

  /** Process groups the runner ended (see REAP_REASONS). */
  processesReaped(reason: ReapReasonLabel, count: number): Promise<void> {
    if (count <= 0) return Promise.resolve();
    return this.#quietly("processes_reaped", async () => {
      await this.#redis.hincrby(this.keys.counter("processes_reaped"), JSON.stringify([reason]), count);
    });
  }

  /**
   * An outage a worker's runs waited out (see execution.redis_outage_seconds), counted once Redis
   * takes writes again: it could not be written while it lasted.
   */
  redisOutage(condition: string, waitedSeconds: number): Promise<void> {
    return this.#quietly("redis_outages", async () => {
      const field = JSON.stringify([condition]);
      await this.#redis
        .multi()
        .hincrby(this.keys.counter("redis_outages"), field, 1)
        .hincrbyfloat(this.keys.counter("redis_outage_seconds"), field, waitedSeconds)
        .exec();
    });
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

  /**
   * Adds a finished run's usage (summed from its journal) to the per-agent, per-model series, once
   * per run even if a crash makes a worker finish it again.
   */
  runUsage(runId: string, labels: { agent: string; model: string }, usage: RunUsageCounts): Promise<void> {
    const families: [CounterFamily, number][] = [
      ["model_input_tokens", usage.inputTokens],
      ["model_output_tokens", usage.outputTokens],
      ["model_cached_tokens", usage.cachedTokens],
      ["model_cost_usd", usage.costUsd],
      ["model_active_seconds", usage.activeSeconds],
      ["model_retries", usage.retries],
    ];
    return this.#quietly("model_usage", async () => {
      await this.#redis.eval(
        COUNT_USAGE_ONCE,
        1 + families.length,
        this.keys.seenUsage(runId),
        ...families.map(([f]) => this.keys.counter(f)),
        SEEN_RUN_TTL_MS,
        JSON.stringify([labels.agent, labels.model]),
        ...families.map(([, n]) => String(n)),
      );
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

/**
 * The member of a day's set that marks one decision counted, and the set's shard: the first 64 bits
 * of the SHA-256 of run, call, verdict and step as a signed decimal integer, and its 9th byte (two
 * hex digits, 256 shards a day). Integers, so that a shard of up to `set-max-intset-entries` (512 by
 * default: 131,072 decisions a day) is an intset, 8 bytes a member, where the 22-character string
 * of the earlier shape cost ~76 bytes of hash table per parked run. Above that a
 * shard becomes a hash table of ~20-character strings. 64 bits make a collision, which
 * would drop one count, negligible.
 */
export function decisionSeenMember(
  runId: string,
  idempotencyKey: string,
  verdict: string,
  step: number,
): { member: string; shard: string } {
  const digest = decisionDigest(runId, idempotencyKey, verdict, step);
  return { member: digest.readBigInt64BE(0).toString(), shard: digest.subarray(8, 9).toString("hex") };
}

/**
 * The member of the same decision in the sets of the earlier shape (still checked):
 * the digest's first 128 bits in base64url, in the set of its first character.
 */
export function previousDecisionSeenMember(
  runId: string,
  idempotencyKey: string,
  verdict: string,
  step: number,
): string {
  return decisionDigest(runId, idempotencyKey, verdict, step).subarray(0, 16).toString("base64url");
}

function decisionDigest(runId: string, idempotencyKey: string, verdict: string, step: number): Buffer {
  return createHash("sha256")
    .update(JSON.stringify([runId, idempotencyKey, verdict, step]))
    .digest();
}

/**
 * The dedupe field of one decision in the per-run hash of the release before the per-day sets
 * (still honoured there). A tool call's idempotency key is a hex SHA-256, of which it kept the
 * first 128 bits; any other key whole.
 */
export function legacyDecisionSeenField(idempotencyKey: string, verdict: string, step: number): string {
  return /^[0-9a-f]{64}$/.test(idempotencyKey)
    ? `${idempotencyKey.slice(0, 32)}:${verdict}:${step}`
    : JSON.stringify([idempotencyKey, verdict, step]);
}
