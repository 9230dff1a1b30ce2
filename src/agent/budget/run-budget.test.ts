import { describe, expect, it } from "vitest";
import { exhaustedLimit, hasLimits, stricterBudget, utcDay } from "./run-budget.js";
import { costOf, emptyTotals } from "./usage-totals.js";

describe("run budgets", () => {
  const used = { ...emptyTotals(), inputTokens: 1000, outputTokens: 100, costUsd: 0.5, activeMs: 30_000 };

  it.each([
    [{ maxInputTokens: 1000 }, "max_input_tokens"],
    [{ maxOutputTokens: 100 }, "max_output_tokens"],
    [{ maxCostUsd: 0.5 }, "max_cost_usd"],
    [{ maxWallSeconds: 30 }, "max_wall_seconds"],
    [{ maxDailyCostUsd: 2 }, "max_daily_cost_usd"],
  ] as const)("%o is reached at %s (used >= allowed)", (budget, limit) => {
    expect(exhaustedLimit(budget, used, 2)?.limit).toBe(limit);
  });

  it("is not reached below every limit, nor without limits", () => {
    const budget = {
      maxInputTokens: 1001,
      maxOutputTokens: 101,
      maxCostUsd: 0.51,
      maxWallSeconds: 31,
      maxDailyCostUsd: 3,
    };
    expect(exhaustedLimit(budget, used, 2)).toBeUndefined();
    expect(hasLimits({})).toBe(false);
    expect(exhaustedLimit({}, used, 100)).toBeUndefined();
  });

  it("takes the stricter of agent and schedule, limit by limit", () => {
    expect(
      stricterBudget({ maxCostUsd: 1, maxInputTokens: 10 }, { maxCostUsd: 0.5, maxWallSeconds: 60 }),
    ).toEqual({
      maxCostUsd: 0.5,
      maxInputTokens: 10,
      maxWallSeconds: 60,
      maxOutputTokens: undefined,
      maxDailyCostUsd: undefined,
    });
  });

  it("prices fresh, cached and output tokens per million", () => {
    const usage = {
      promptTokens: 1_500_000,
      completionTokens: 100_000,
      totalTokens: 1_600_000,
      cachedTokens: 500_000,
    };
    expect(costOf(usage, { input: 3, output: 15, cachedInput: 0.3 })).toBeCloseTo(3 + 0.15 + 1.5, 9);
    expect(costOf(usage, { input: 3, output: 15 })).toBeCloseTo(4.5 + 1.5, 9);
    expect(costOf(usage, undefined)).toBe(0);
  });

  it("names the UTC day of an instant", () => {
    expect(utcDay(Date.UTC(2026, 11, 1, 23, 59))).toEqual({
      day: "2026-12-01",
      fromMs: Date.UTC(2026, 11, 1),
      toMs: Date.UTC(2026, 11, 2),
    });
  });
});
