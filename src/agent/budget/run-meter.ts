import type { Journal } from "../../journal/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import type { Clock } from "../../shared/index.js";
import { type ModelResponse, ModelResponse as ModelResponseSchema } from "../model/model-client.js";
import type { ModelRetry } from "../model/model-retry.js";
import { type BudgetExhaustion, exhaustedLimit, hasLimits, type RunBudget, utcDay } from "./run-budget.js";
import type { UsageIndex } from "./usage-index.js";
import {
  addResponse,
  costOf,
  emptyTotals,
  type ModelPrice,
  sumTotals,
  type UsageTotals,
  usageOfRecords,
} from "./usage-totals.js";

/** Options for {@link RunMeter.start}. */
export interface RunMeterOptions {
  payload: AgentJobPayload;
  journal: Journal;
  clock: Clock;
  budget: RunBudget;
  price: ModelPrice | undefined;
  index: UsageIndex | undefined;
  /** The run's completed journal records (key → result), read when the run (re)started. */
  recorded: ReadonlyMap<string, unknown>;
}

/**
 * What one run consumed and whether its tree may make another model call. Its own figures come from
 * its journal (read at start, then each fresh response); its tree's and its schedule's day's from
 * the journals of the runs the usage index lists. Never a counter of its own: a replay reads the
 * same records, so nothing is counted twice.
 */
export class RunMeter {
  readonly #o: RunMeterOptions;
  readonly #own: UsageTotals;
  readonly #ownAt: { at: number; costUsd: number }[] = [];
  #segmentStart: number;
  #joinedDay: string | undefined;

  private constructor(options: RunMeterOptions) {
    this.#o = options;
    this.#own = emptyTotals();
    for (const [key, value] of options.recorded) {
      if (!key.startsWith("model:")) continue;
      const parsed = ModelResponseSchema.safeParse(value);
      if (parsed.success) this.#count(parsed.data);
    }
    // Time before this attempt started (parked, queued, crashed) is not the run's active time.
    this.#segmentStart = options.clock.now();
  }

  /** A meter for a run that is starting or resuming. */
  static start(options: RunMeterOptions): RunMeter {
    return new RunMeter(options);
  }

  /** This run's own totals (its sub-agents not included). */
  get own(): UsageTotals {
    return { ...this.#own };
  }

  /**
   * The limit the run tree has reached, or undefined: checked before every fresh model call. Reads
   * the other runs' journals only when a limit is set.
   */
  async exhausted(): Promise<BudgetExhaustion | undefined> {
    const { budget, payload, index, clock } = this.#o;
    if (!hasLimits(budget)) return undefined;
    const now = clock.now();
    await this.#join(now);
    let tree = this.#own;
    if (index) {
      for (const runId of await index.traceRuns(payload.traceId)) {
        if (runId === payload.runId) continue;
        tree = sumTotals(tree, usageOfRecords((await this.#o.journal.readRun(runId)).records));
      }
    }
    let daily: number | undefined;
    if (budget.maxDailyCostUsd !== undefined && payload.origin.scheduleId) {
      const day = utcDay(now);
      daily = this.#ownAt
        .filter((r) => r.at >= day.fromMs && r.at < day.toMs)
        .reduce((s, r) => s + r.costUsd, 0);
      if (index) {
        for (const runId of await index.scheduleRuns(payload.origin.scheduleId, day.day)) {
          if (runId === payload.runId) continue;
          daily += usageOfRecords((await this.#o.journal.readRun(runId)).records, day).costUsd;
        }
      }
    }
    return exhaustedLimit(budget, tree, daily);
  }

  /**
   * The fresh response as it is journalled: with its retries, active time since the previous step
   * (or since this attempt started), arrival time and cost. Counts it.
   */
  stamp(response: ModelResponse, retries: readonly ModelRetry[]): ModelResponse {
    const now = this.#o.clock.now();
    const stamped: ModelResponse = {
      ...response,
      ...(retries.length > 0 ? { retries: [...retries] } : {}),
      activeMs: Math.max(0, Math.round(now - this.#segmentStart)),
      at: now,
      costUsd: costOf(response.usage, this.#o.price),
    };
    this.#segmentStart = now;
    return stamped;
  }

  /** Counts a response once it is the journalled one (fresh: as stamped; replayed: not again). */
  recorded(response: ModelResponse, replay: boolean): void {
    if (!replay) this.#count(response);
  }

  #count(response: ModelResponse): void {
    addResponse(this.#own, response);
    if (response.at !== undefined) this.#ownAt.push({ at: response.at, costUsd: response.costUsd ?? 0 });
  }

  async #join(now: number): Promise<void> {
    const { index, payload } = this.#o;
    const { day } = utcDay(now);
    if (!index || this.#joinedDay === day) return;
    await index.join({
      traceId: payload.traceId,
      runId: payload.runId,
      scheduleId: payload.origin.scheduleId,
      day,
    });
    this.#joinedDay = day;
  }
}
