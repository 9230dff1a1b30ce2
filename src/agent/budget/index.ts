export { type BudgetExhaustion, type RunBudget, stricterBudget } from "./run-budget.js";
export { RunMeter } from "./run-meter.js";
export { redisUsageIndex } from "./usage-index.js";
export { type UsageTotals, usageOfRecords } from "./usage-totals.js";
