import type { UsageTotals } from "./usage-totals.js";

/**
 * The limits of one run tree (a top-level run and its sub-agents), from the agent's and the
 * schedule's config (the stricter applies). Unset = no limit. `max_steps` stays per run (payload).
 */
export interface RunBudget {
  readonly maxInputTokens?: number | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly maxCostUsd?: number | undefined;
  /** Active seconds (time parked for a person or a child does not count). */
  readonly maxWallSeconds?: number | undefined;
  /** Summed cost of the schedule's runs on one UTC day, USD. */
  readonly maxDailyCostUsd?: number | undefined;
}

/** Which limit a run reached. */
export const BUDGET_LIMITS = [
  "max_input_tokens",
  "max_output_tokens",
  "max_cost_usd",
  "max_wall_seconds",
  "max_daily_cost_usd",
] as const;
export type BudgetLimit = (typeof BUDGET_LIMITS)[number];

/** A reached limit: which, its value and what was used (in the limit's unit). */
export interface BudgetExhaustion {
  readonly limit: BudgetLimit;
  readonly allowed: number;
  readonly used: number;
}

/** The stricter of two budgets, limit by limit. */
export function stricterBudget(a: RunBudget, b: RunBudget): RunBudget {
  const min = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y);
  return {
    maxInputTokens: min(a.maxInputTokens, b.maxInputTokens),
    maxOutputTokens: min(a.maxOutputTokens, b.maxOutputTokens),
    maxCostUsd: min(a.maxCostUsd, b.maxCostUsd),
    maxWallSeconds: min(a.maxWallSeconds, b.maxWallSeconds),
    maxDailyCostUsd: min(a.maxDailyCostUsd, b.maxDailyCostUsd),
  };
}

/** Whether the budget sets any limit (no limit: nothing to read before each step). */
export function hasLimits(budget: RunBudget): boolean {
  return Object.values(budget).some((v) => v !== undefined);
}

/**
 * The first limit the run tree has reached (used >= allowed), in the order of {@link BUDGET_LIMITS},
 * or undefined. Pure: the caller sums `tree` and `daily` from the journals.
 */
export function exhaustedLimit(
  budget: RunBudget,
  tree: UsageTotals,
  dailyCostUsd: number | undefined,
): BudgetExhaustion | undefined {
  const checks: [BudgetLimit, number | undefined, number][] = [
    ["max_input_tokens", budget.maxInputTokens, tree.inputTokens],
    ["max_output_tokens", budget.maxOutputTokens, tree.outputTokens],
    ["max_cost_usd", budget.maxCostUsd, tree.costUsd],
    ["max_wall_seconds", budget.maxWallSeconds, tree.activeMs / 1000],
    ["max_daily_cost_usd", budget.maxDailyCostUsd, dailyCostUsd ?? 0],
  ];
  for (const [limit, allowed, used] of checks) {
    if (allowed !== undefined && used >= allowed) return { limit, allowed, used };
  }
  return undefined;
}

/** The UTC day [start, end) containing `ms`, and its yyyy-mm-dd name. */
export function utcDay(ms: number): { day: string; fromMs: number; toMs: number } {
  const fromMs = Math.floor(ms / 86_400_000) * 86_400_000;
  return { day: new Date(fromMs).toISOString().slice(0, 10), fromMs, toMs: fromMs + 86_400_000 };
}
