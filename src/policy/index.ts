export { explainTool, type GateExplanation, type ToolExplanation } from "./explain.js";
export { type JobToolSubset, resolveChildToolSubset } from "./job-subset.js";
export { isHostAllowed } from "./network-policy.js";
export { prepareToolPolicy, type ToolPolicyInput } from "./prepare.js";
export {
  checkToolCall,
  resolvePreparedToolPolicy,
  resolveToolPolicy,
  type ToolPolicyResolution,
} from "./resolve-tool-policy.js";
export { EXEC_MODE_BY_PERMISSION_MODE, EXEC_MODES, type ExecMode } from "./session-mode.js";
export {
  APPROVAL_MODES,
  type ApprovalMode,
  EXEC_ASK_MODES,
  EXEC_SECURITY_LEVELS,
  type ExecAsk,
  type ExecSecurity,
  NETWORK_POLICIES,
  type NetworkPolicy,
  SECURITY_PROFILES,
  SESSION_PERMISSION_MODES,
  type SessionPermissionMode,
  strictestOf,
  TOOL_EXECUTION_MODES,
  type ToolExecutionMode,
  UNATTENDED_POLICIES,
  type UnattendedPolicy,
} from "./settings.js";
export { isToolGroupEntry, toolGroupProblem } from "./tool-groups.js";
export type { ToolListSource } from "./tool-lists.js";
export { searchDeferredTools } from "./tool-search.js";
