/** Risk levels of seed 000, from least to most severe. The order is the severity. */
export const RISK_LEVELS = ["read_only", "write", "exec", "dangerous"] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** Severity of a risk level: read_only 0 < write 1 < exec 2 < dangerous 3. */
export function riskSeverity(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

/** The more severe of the given levels (never down-grades). */
export function maxRisk(...levels: readonly RiskLevel[]): RiskLevel {
  let worst: RiskLevel = "read_only";
  for (const level of levels) if (riskSeverity(level) > riskSeverity(worst)) worst = level;
  return worst;
}
