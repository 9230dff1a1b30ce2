export {
  type BuiltinToolLimits,
  type BuiltinToolRuntime,
  DEFAULT_BUILTIN_LIMITS,
  EXEC_HOSTS,
  type ExecHost,
  resolveBuiltinLimits,
  type SpillReader,
} from "./builtin-runtime.js";
export { createBuiltinTools } from "./builtin-tools.js";
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
export { CHILD_ENV_ALLOW, isSecretEnvName } from "./child-env.js";
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
export {
  createExtraTools,
  createExtraTools,
  type ExtraToolRuntime,
  type ExtraToolRuntime,
} from "./extra-tools.js";
export { FrozenSet } from "./frozen-set.js";
export { invokeTool } from "./invoke-tool.js";
export {
  type ConnectedMcpServers,
  type ConnectedMcpServers,
  type ConnectMcpOptions,
  type ConnectMcpOptions,
  connectMcpServers,
  connectMcpServers,
  type McpAbsence,
  type McpAbsence,
  type McpHttpServerSpec,
  type McpHttpServerSpec,
  type McpServerSpec,
  type McpServerSpec,
  type McpStdioServerSpec,
  type McpStdioServerSpec,
  mcpToolRisk,
  mcpToolRisk,
} from "./mcp/index.js";
export type {
  MediaEndpoint,
  MediaEndpoint,
  MediaSettings,
  MediaSettings,
  SpeechEndpoint,
  SpeechEndpoint,
} from "./media-provider.js";
export {
  MESSAGE_CHANNELS,
  MESSAGE_CHANNELS,
  MESSAGE_KINDS,
  MESSAGE_KINDS,
  type MessageChannel,
  type MessageChannel,
  type MessageKind,
  type MessageKind,
  type MessageSender,
  type MessageSender,
  type OutboundMessage,
  type OutboundMessage,
  type SentMessage,
  type SentMessage,
} from "./message-port.js";
export {
  createMessageSender,
  createMessageSender,
  type EmailSenderOptions,
  type EmailSenderOptions,
  type MessageSenderOptions,
  type MessageSenderOptions,
  type WebhookSenderOptions,
  type WebhookSenderOptions,
} from "./message-senders.js";
export type { PathFenceFactory, PathFencePort, PathFenceVerdict } from "./path-fence-port.js";
export { ProcessSupervisor, type ProcessSupervisorOptions } from "./process-supervisor.js";
export { TOOL_PROFILES, type ToolProfile } from "./profiles.js";
export type { FetchFn, FetchFn } from "./provider-http.js";
export { type AbsentTool, createToolRegistry, type PresentTools, type ToolRegistry } from "./registry.js";
export { reservedToolResult, reservedToolResult } from "./reserved-tools.js";
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
export {
  DEFAULT_WEB_FETCH_LIMITS,
  DEFAULT_WEB_FETCH_LIMITS,
  type HostLookup,
  type HostLookup,
  type HostPolicy,
  type HostPolicy,
  type UrlCheck,
  type UrlCheck,
  type UrlChecker,
  type UrlChecker,
  type WebFetchLimits,
  type WebFetchLimits,
  type WebFetchOptions,
  type WebFetchOptions,
} from "./web-ports.js";
export {
  WEB_SEARCH_PROVIDERS,
  WEB_SEARCH_PROVIDERS,
  type WebSearchProvider,
  type WebSearchProvider,
  type WebSearchSettings,
  type WebSearchSettings,
} from "./web-search.js";
