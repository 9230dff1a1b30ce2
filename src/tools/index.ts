export { CAPABILITIES, type Capability } from "./capabilities.js";
export { type CatalogEntry, TOOL_CATALOG, TOOL_SECTIONS, type ToolSection } from "./catalog.js";
export {
  capabilitiesOf,
  catalogEntry,
  isInProfile,
  isKnownTool,
  isMcpToolName,
  isReservedTool,
  listToolSections,
  mcpToolName,
  parseMcpToolName,
  profilesOf,
  riskOf,
  toolsInProfile,
} from "./catalog-lookup.js";
export {
  assertValidTool,
  defineMcpTool,
  defineTool,
  type McpToolDefinition,
  type ToolDefinition,
} from "./define-tool.js";
export {
  APPROVAL_SOURCES,
  type ApprovalSource,
  computeIdempotencyKey,
  createToolExecutionContext,
  type IdempotencyKeyInput,
  type ToolExecutionContext,
  type ToolExecutionContextOptions,
} from "./execution-context.js";
export { FrozenSet } from "./frozen-set.js";
export { invokeTool } from "./invoke-tool.js";
export { TOOL_PROFILES, type ToolProfile } from "./profiles.js";
export { type AbsentTool, createToolRegistry, type PresentTools, type ToolRegistry } from "./registry.js";
export { maxRisk, RISK_LEVELS, type RiskLevel, riskSeverity } from "./risk.js";
export {
  type AnyTool,
  PASSTHROUGH,
  PERMISSION_BEHAVIORS,
  type PermissionBehavior,
  Tool,
  type ToolEnvironment,
  type ToolPermissionDecision,
  type ToolReadiness,
} from "./tool.js";
export { describeCatalogTool, describeTool, type ToolDescriptor, type ToolState } from "./tool-descriptor.js";
export {
  isToolErrorKind,
  TOOL_ERROR_KINDS,
  type ToolErrorKind,
  type ToolFailure,
  type ToolResult,
  type ToolSuccess,
  toolFailure,
  toolSuccess,
} from "./tool-result.js";
export {
  createToolSearchTool,
  TOOL_SEARCH_DEFAULT_RESULTS,
  TOOL_SEARCH_MAX_RESULTS,
  TOOL_SEARCH_MODES,
  type ToolSearchFn,
  type ToolSearchMatch,
  type ToolSearchMode,
  type ToolSearchOutcome,
} from "./tool-search-tool.js";
export {
  type ArgsValidation,
  type InvalidField,
  validateAnyToolArgs,
  validateToolArgs,
} from "./validate-args.js";
