/**
 * The tool catalog (pure: imports only src/shared): every declared tool as data, the sets and
 * lookups derived from it, risk, capabilities and profiles, the tool interface and argument
 * validation. Policy, guard and gate read tools through this folder, never through src/tools,
 * so loading the decision core loads no tool implementation.
 */
export { CAPABILITIES, type Capability } from "./capabilities.js";
export { type CatalogEntry, TOOL_CATALOG, type ToolName } from "./catalog.js";
export {
  capabilitiesOf,
  catalogEntry,
  isInProfile,
  isKnownTool,
  isMcpToolName,
  parseMcpToolName,
  profilesOf,
  riskOf,
} from "./catalog-lookup.js";
export { assertValidTool, defineMcpTool, defineTool, type ToolDefinition } from "./define-tool.js";
export { EXEC_HOSTS, type ExecHost } from "./exec-hosts.js";
export { APPROVAL_SOURCES, type ApprovalSource, type ToolExecutionContext } from "./execution-context.js";
export { NETWORK_POLICIES, type NetworkPolicy } from "./network-policies.js";
export { PATH_ACCESS, type PathAccess } from "./path-access.js";
export { TOOL_PROFILES, type ToolProfile } from "./profiles.js";
export { reservedToolResult } from "./reserved-tools.js";
export { maxRisk, RISK_LEVELS, type RiskLevel } from "./risk.js";
export type {
  ChildFlowRecord,
  ChildRefusal,
  ChildSpec,
  ChildState,
  ChildStopOutcome,
  ChildUpdateOutcome,
  PersonAnswer,
  RunControl,
} from "./run-control.js";
export {
  type AnyTool,
  PASSTHROUGH,
  Tool,
  type ToolEnvironment,
  type ToolPermissionDecision,
  type ToolReadiness,
} from "./tool.js";
export { TOOL_SECTIONS, type ToolSection } from "./tool-declaration.js";
export { describeCatalogTool, describeTool, type ToolDescriptor, type ToolState } from "./tool-descriptor.js";
export {
  isToolErrorKind,
  TOOL_ERROR_KINDS,
  type ToolErrorKind,
  type ToolFailure,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from "./tool-result.js";
export {
  TOOL_SEARCH_DEFAULT_RESULTS,
  TOOL_SEARCH_MAX_RESULTS,
  type ToolSearchFn,
  type ToolSearchMatch,
  type ToolSearchOutcome,
} from "./tool-search-contract.js";
export { EXEC_CLASS_TOOLS, isExecClassTool, pathArgumentsOf, type SubagentTool } from "./tool-sets.js";
export { validateAnyToolArgs, validateToolArgs } from "./validate-args.js";
export { DECISION_VERDICTS } from "./verdicts.js";
export { WEB_SEARCH_PROVIDERS, type WebSearchProvider } from "./web-search-providers.js";
