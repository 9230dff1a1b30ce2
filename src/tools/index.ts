export { missingForAction } from "./action-args.js";
export { ENTRY_COUNT_CAP, workspaceEntryState } from "./beneath/workspace-entry-state.js";
export { RUN_FILE_MAX_BYTES, workspaceFileDigest } from "./beneath/workspace-file-digest.js";
export {
  currentWorkspaceView,
  viewedPath,
  type WorkspaceView,
  withWorkspaceView,
} from "./beneath/workspace-view.js";
export {
  type BuiltinToolLimits,
  type BuiltinToolRuntime,
  DEFAULT_BUILTIN_LIMITS,
  resolveBuiltinLimits,
  type SpillReader,
} from "./builtin-runtime.js";
export type { ChangeSetSummary } from "./layer/change-set-summary.js";
export { openLayerNamespace } from "./layer/layer-namespace.js";
export { type LayerProbe, probeLayers } from "./layer/layer-probe.js";
export {
  LAYER_STATES,
  type LayerChanges,
  type LayerRecord,
  type LayerState,
  RunLayers,
} from "./layer/run-layers.js";
export type { WorkspaceLayerPort } from "./layer/workspace-layer-port.js";
export {
  childrenStartedBy,
  createClarifyTool,
  createLoopTools,
  createSubagentTools,
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
export type { MediaEndpoint, MediaSettings, SpeechEndpoint } from "./media/media-provider.js";
export {
  MESSAGE_CHANNELS,
  MESSAGE_KINDS,
  type MessageChannel,
  type MessageKind,
  type MessageSender,
  type OutboundMessage,
  type SentMessage,
} from "./messaging/message-port.js";
export {
  createMessageSender,
  type EmailSenderOptions,
  type MessageSenderOptions,
  RECIPIENTS_KEY,
  type WebhookSenderOptions,
  webhookSignature,
} from "./messaging/message-senders.js";
export type { PathFenceFactory, PathFencePort, PathFenceVerdict } from "./path-fence-port.js";
export { BASH_CANDIDATES, BASH_FLAGS, type BashShell, locateBash } from "./process/bash-shell.js";
export { CHILD_ENV_ALLOW, isSecretEnvName, isShellStartupEnvName } from "./process/child-env.js";
export { ProcessRecords, type ReapReport } from "./process/process-records.js";
export { ProcessSupervisor, type ProcessSupervisorOptions } from "./process/process-supervisor.js";
export type { FetchFn } from "./provider-http.js";
export { createBuiltinTools } from "./registry/builtin-tools.js";
export {
  computeIdempotencyKey,
  contextForAttempt,
  contextForExecution,
  createToolExecutionContext,
  type ExecutionDetails,
  type IdempotencyKeyInput,
  type ToolExecutionContextOptions,
} from "./registry/execution-context.js";
export { createExtraTools, type ExtraToolRuntime } from "./registry/extra-tools.js";
export { FrozenSet } from "./registry/frozen-set.js";
export { invokeTool } from "./registry/invoke-tool.js";
export {
  type AbsentTool,
  createToolRegistry,
  type PresentTools,
  type ToolRegistry,
} from "./registry/registry.js";
export { createToolSearchTool } from "./registry/tool-search-tool.js";
export {
  cgroupsDescription,
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
export {
  type ArchivedRun,
  RedisSessionArchive,
  type RedisSessionArchiveOptions,
} from "./sessions/session-archive.js";
export {
  createSessionSearchTool,
  SESSION_SEARCH_MAX_RUNS,
  type SessionArchive,
  type SessionSummary,
  type TranscriptEntry,
} from "./sessions/session-search.js";
export {
  DEFAULT_WEB_FETCH_LIMITS,
  type HostLookup,
  type HostPolicy,
  type UrlCheck,
  type UrlChecker,
  type WebFetchLimits,
  type WebFetchOptions,
} from "./web/web-ports.js";
export type { WebSearchSettings } from "./web/web-search.js";
