export {
  ALLOW_ALWAYS_SCOPES,
  type AllowAlwaysRecord,
  type AllowAlwaysScope,
  type AllowAlwaysStore,
  allowAlwaysMatches,
  memoryAllowAlwaysStore,
} from "./allow-always.js";
export { ApprovalGate, GATE_STEP_LIST, type GateCheckOptions, type GateStepTrace } from "./approval-gate.js";
export { callFindings } from "./call-findings.js";
export {
  type DecisionSource,
  GATE_STEPS,
  GATE_VERDICTS,
  type GateDecision,
  type GateStepName,
  type GateVerdict,
} from "./decision.js";
export {
  EXEC_CLASS_TOOLS,
  type ExecHostKind,
  type GateCall,
  type GateConfig,
  type GateContext,
  type GuardAssessment,
  type HumanApproval,
} from "./gate-input.js";
export {
  buildSmartPrompt,
  parseSmartReply,
  SMART_MAX_INPUT_CHARS,
  SMART_VERDICTS,
  type SmartApprover,
  type SmartVerdict,
} from "./smart-approval.js";
export type { GatePorts } from "./step.js";
