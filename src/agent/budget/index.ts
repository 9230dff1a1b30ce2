export {
  BUDGET_LIMITS,
  type BudgetExhaustion,
  type BudgetLimit,
  exhaustedLimit,
  hasLimits,
  type RunBudget,
  stricterBudget,
  utcDay,
} from "./run-budget.js";
export { RunMeter, type RunMeterOptions } from "./run-meter.js";
export { redisUsageIndex, type UsageIndex } from "./usage-index.js";
export {
  addResponse,
  costOf,
  emptyTotals,
  type ModelPrice,
  sumTotals,
  type UsageTotals,
  usageOfRecords,
} from "./usage-totals.js";
