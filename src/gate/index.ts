export {
  ALLOW_ALWAYS_SCOPES,
  type AllowAlwaysRecord,
  type AllowAlwaysScope,
  type AllowAlwaysStore,
} from "./allow-always.js";
export { ApprovalGate, type GateStepTrace } from "./approval-gate.js";
export { callFindings } from "./call-findings.js";
export type { GateDecision } from "./decision.js";
export {
  EXEC_CLASS_TOOLS,
  type GateCall,
  type GateConfig,
  type GateContext,
  type GuardAssessment,
  type HumanApproval,
} from "./gate-input.js";
export type { SmartApprover } from "./smart-approval.js";
export type { GatePorts } from "./step.js";
