export { missingForAction } from "./action-args.js";
export { BASH_CANDIDATES, BASH_FLAGS, type BashShell, locateBash } from "./bash-shell.js";
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
export { CHILD_ENV_ALLOW, isSecretEnvName, isShellStartupEnvName } from "./child-env.js";
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
  contextForAttempt,
  createToolExecutionContext,
  type IdempotencyKeyInput,
  type ToolExecutionContext,
  type ToolExecutionContextOptions,
} from "./execution-context.js";
export { createExtraTools, type ExtraToolRuntime } from "./extra-tools.js";
export { FrozenSet } from "./frozen-set.js";
export { invokeTool } from "./invoke-tool.js";
export {
  type ChildFlowRecord,
  type ChildRefusal,
  type ChildSpec,
  type ChildState,
  type ChildStopOutcome,
  type ChildUpdateOutcome,
  childrenStartedBy,
  createClarifyTool,
  createLoopTools,
  createSubagentTools,
  type FlowStepStart,
  type PersonAnswer,
  type RunControl,
  SUBAGENT_TOOLS,
  type SubagentTool,
  usesRunControl,
} from "./loop/index.js";
export {
  type ConnectedMcpServers,
  type ConnectMcpOptions,
  connectMcpServers,
  type McpAbsence,
  type McpHttpServerSpec,
  type McpServerSpec,
  type McpStdioServerSpec,
  mcpToolRisk,
} from "./mcp/index.js";
export type { MediaEndpoint, MediaSettings, SpeechEndpoint } from "./media-provider.js";
export {
  MESSAGE_CHANNELS,
  MESSAGE_KINDS,
  type MessageChannel,
  type MessageKind,
  type MessageSender,
  type OutboundMessage,
  type SentMessage,
} from "./message-port.js";
export {
  createMessageSender,
  type EmailSenderOptions,
  type MessageSenderOptions,
  RECIPIENTS_KEY,
  type WebhookSenderOptions,
  webhookSignature,
} from "./message-senders.js";
export type { PathFenceFactory, PathFencePort, PathFenceVerdict } from "./path-fence-port.js";
export { ProcessSupervisor, type ProcessSupervisorOptions } from "./process-supervisor.js";
export { TOOL_PROFILES, type ToolProfile } from "./profiles.js";
export type { FetchFn } from "./provider-http.js";
export { type AbsentTool, createToolRegistry, type PresentTools, type ToolRegistry } from "./registry.js";
export { reservedToolResult } from "./reserved-tools.js";
export { maxRisk, RISK_LEVELS, type RiskLevel, riskSeverity } from "./risk.js";
export {
  checkWorkspaceOverlap,
  createSandboxHost,
  DEFAULT_SANDBOX_LIMITS,
  type EgressProxyOptions,
  probeSandbox,
  SANDBOX_NETWORK_POLICIES,
  type SandboxHost,
  type SandboxHostOptions,
  type SandboxLimits,
  type SandboxNetworkPolicy,
  type SandboxProbe,
} from "./sandbox/index.js";
export { type ArchivedRun, RedisSessionArchive, type RedisSessionArchiveOptions } from "./session-archive.js";
export {
  createSessionSearchTool,
  SESSION_SEARCH_MAX_RUNS,
  type SessionArchive,
  type SessionSummary,
  type TranscriptEntry,
} from "./session-search.js";
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
  type HostLookup,
  type HostPolicy,
  type UrlCheck,
  type UrlChecker,
  type WebFetchLimits,
  type WebFetchOptions,
} from "./web-ports.js";
export { WEB_SEARCH_PROVIDERS, type WebSearchProvider, type WebSearchSettings } from "./web-search.js";
