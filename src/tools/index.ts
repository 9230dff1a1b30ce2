// The catalog (tool interface, names, risk, capabilities, profiles, validation) is re-exported so
// implementations and the runtime import one folder; the pure core imports src/catalog directly.
export * from "../catalog/index.js";
export { missingForAction } from "./action-args.js";
export { BASH_CANDIDATES, BASH_FLAGS, type BashShell, locateBash } from "./bash-shell.js";
export {
  type BuiltinToolLimits,
  type BuiltinToolRuntime,
  DEFAULT_BUILTIN_LIMITS,
  resolveBuiltinLimits,
  type SpillReader,
} from "./builtin-runtime.js";
export { createBuiltinTools } from "./builtin-tools.js";
export { CHILD_ENV_ALLOW, isSecretEnvName, isShellStartupEnvName } from "./child-env.js";
export {
  computeIdempotencyKey,
  contextForAttempt,
  createToolExecutionContext,
  type IdempotencyKeyInput,
  type ToolExecutionContextOptions,
} from "./execution-context.js";
export { createExtraTools, type ExtraToolRuntime } from "./extra-tools.js";
export { FrozenSet } from "./frozen-set.js";
export { invokeTool } from "./invoke-tool.js";
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
export type { FetchFn } from "./provider-http.js";
export { type AbsentTool, createToolRegistry, type PresentTools, type ToolRegistry } from "./registry.js";
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
export { createToolSearchTool } from "./tool-search-tool.js";
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
