export {
  type ArgumentRiskFacts,
  capabilitiesOfCall,
  childTools,
  classifyRisk,
  explainRisk,
  type RiskClassification,
} from "./classify-risk.js";
export {
  type ExplainToolOptions,
  explainTool,
  type GateExplanation,
  type GateStepVerdict,
  LAYER_VERDICTS,
  type LayerVerdict,
  type LayerVerdictKind,
  type ToolExplanation,
} from "./explain.js";
export {
  type ChildToolSubset,
  type JobToolSubset,
  jobSubsetRemoval,
  resolveChildToolSubset,
} from "./job-subset.js";
export {
  layerLabel,
  POLICY_LAYER_IDS,
  POLICY_LAYERS,
  type PolicyLayer,
  type PolicyLayerId,
} from "./layers.js";
export { isHostAllowed, networkPolicyRemoval, validateHostPattern } from "./network-policy.js";
export {
  NOT_PRESENT,
  type PreparedToolPolicy,
  prepareToolPolicy,
  type ToolFacts,
  type ToolPolicyInput,
  toolFacts,
} from "./prepare.js";
export {
  checkToolCall,
  firstRemoval,
  type RemovedTool,
  resolvePreparedToolPolicy,
  resolveToolPolicy,
  type ToolCallPolicyDecision,
  type ToolPolicyResolution,
} from "./resolve-tool-policy.js";
export {
  SECURITY_PROFILE_RULES,
  type SecurityProfileRule,
  SIDE_EFFECT_CAPABILITIES,
  securityProfileRemoval,
} from "./security-profiles.js";
export {
  EXEC_MODE_BY_PERMISSION_MODE,
  EXEC_MODES,
  type ExecMode,
  resolveSessionPermissionPolicy,
  resolveWorkspaceFence,
  type SessionPermissionPolicy,
  sessionModeRemoval,
  type WorkspaceFence,
} from "./session-mode.js";
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
  type SecurityProfile,
  type SessionPermissionMode,
  strictestOf,
  TOOL_EXECUTION_MODES,
  type ToolExecutionMode,
  UNATTENDED_POLICIES,
  type UnattendedPolicy,
} from "./settings.js";
export {
  isToolGroupEntry,
  knownToolGroups,
  matchesToolGroup,
  parseToolGroup,
  TOOL_GROUP_PREFIX,
  type ToolGroup,
  toolGroupProblem,
} from "./tool-groups.js";
export {
  findPattern,
  type MergedToolLists,
  matchesToolPattern,
  mergeToolLists,
  type PatternSources,
  type ToolListSource,
} from "./tool-lists.js";
export { searchDeferredTools, searchTools } from "./tool-search.js";
