import type { ApprovalSource, RiskLevel } from "../catalog/index.js";
import { GUARD_VERDICTS } from "../guard/index.js";

/** What the gate answers: the guard's verdicts, one list. */
export const GATE_VERDICTS = GUARD_VERDICTS;
export type GateVerdict = (typeof GATE_VERDICTS)[number];

/** The 11 steps of seed 000's ApprovalGate.check, in order (step number = index + 1). */
export const GATE_STEPS = [
  "static_guard",
  "elevation",
  "risk",
  "unattended",
  "low_risk",
  "auto_approve",
  "cli_auto_approve",
  "trusted_channel",
  "allow_always",
  "smart_approval",
  "human",
] as const;
export type GateStepName = (typeof GATE_STEPS)[number];

/** The gate's decision, as data. Every decision is written to the audit trail by the caller. */
export interface GateDecision {
  readonly verdict: GateVerdict;
  /** 1–11: the step that decided; 0 when a policy layer refused the call before the gate. */
  readonly step: number;
  readonly stepName: GateStepName | "policy";
  /** Why, in words a person understands. */
  readonly reason: string;
  readonly risk: RiskLevel;
  /** The guard (or the tool's own check, or an always-ask setting) wants a person to look. */
  readonly flagged: boolean;
  /** For allow: "human" only when a person approved this very call; "auto" for every policy allow. */
  readonly approvalSource: ApprovalSource;
}
