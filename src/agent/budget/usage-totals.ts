import type { JournalRecord } from "../../journal/index.js";
import {
  type ModelResponse,
  ModelResponse as ModelResponseSchema,
  type ModelUsage,
} from "../model/model-client.js";

/** USD per million tokens (config `models.<name>.price`). */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Price of prompt tokens read from the provider's cache; `input` when unset. */
  readonly cachedInput?: number | undefined;
}

/** What a run (or a set of runs) consumed, summed from journalled model responses. */
export interface UsageTotals {
  /** Model responses counted. */
  responses: number;
  /** Prompt tokens the providers reported (cached ones included). */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from a prompt cache. */
  cachedTokens: number;
  /** USD, at the price configured when each response arrived. */
  costUsd: number;
  /** Active time, ms: the time between model responses, without the time the run was parked. */
  activeMs: number;
  /** Transient model failures retried (rate limits, overloads, timeouts). */
  retries: number;
}

/** Totals of nothing. */
export function emptyTotals(): UsageTotals {
  return {
    responses: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    costUsd: 0,
    activeMs: 0,
    retries: 0,
  };
}

/** USD of one response's usage at `price` (0 without a price). */
export function costOf(usage: ModelUsage | null, price: ModelPrice | undefined): number {
  if (!usage || !price) return 0;
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const fresh = usage.promptTokens - cached;
  return (
    (fresh * price.input +
      cached * (price.cachedInput ?? price.input) +
      usage.completionTokens * price.output) /
    1_000_000
  );
}

/** Adds one journalled response to `totals` (in place) and returns it. */
export function addResponse(totals: UsageTotals, response: ModelResponse): UsageTotals {
  totals.responses += 1;
  totals.inputTokens += response.usage?.promptTokens ?? 0;
  totals.outputTokens += response.usage?.completionTokens ?? 0;
  totals.cachedTokens += response.usage?.cachedTokens ?? 0;
  totals.costUsd += response.costUsd ?? 0;
  totals.activeMs += response.activeMs ?? 0;
  totals.retries += response.retries?.length ?? 0;
  return totals;
}

/** Sums two totals into a new one. */
export function sumTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    responses: a.responses + b.responses,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    costUsd: a.costUsd + b.costUsd,
    activeMs: a.activeMs + b.activeMs,
    retries: a.retries + b.retries,
  };
}

/**
 * Sums the completed `model:<step>` records of one run's journal (optionally only those that arrived
 * in [fromMs, toMs)). Each response is journalled once under its step, so a replay or a crash never
 * counts one twice; a record that does not parse is skipped (the run itself reports it).
 */
export function usageOfRecords(
  records: ReadonlyMap<string, JournalRecord>,
  window?: { fromMs: number; toMs: number },
): UsageTotals {
  const totals = emptyTotals();
  for (const [key, record] of records) {
    if (!key.startsWith("model:") || record.status !== "completed") continue;
    const parsed = ModelResponseSchema.safeParse(record.result);
    if (!parsed.success) continue;
    const at = parsed.data.at;
    if (window && (at === undefined || at < window.fromMs || at >= window.toMs)) continue;
    addResponse(totals, parsed.data);
  }
  return totals;
}
