import type { RunUsageView } from "./run-view.js";

/** A run's consumption in one line: tokens in/out (cached), cost, active time, retries; "" when unknown. */
export function usageText(usage: RunUsageView | null | undefined): string {
  if (!usage) return "";
  const cached = usage.cachedTokens > 0 ? ` (${usage.cachedTokens} cached)` : "";
  const retries =
    usage.retries > 0 ? `, ${usage.retries} model retr${usage.retries === 1 ? "y" : "ies"}` : "";
  return `${usage.inputTokens} in${cached} / ${usage.outputTokens} out tokens, $${usage.costUsd.toFixed(4)}, ${usage.activeSeconds.toFixed(1)} s active${retries}`;
}
