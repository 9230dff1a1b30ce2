export { workspaceEntryState } from "./beneath/workspace-entry-state.js";
export { workspaceFileDigest } from "./beneath/workspace-file-digest.js";
export {
  currentWorkspaceView,
  viewedPath,
  type WorkspaceView,
  withWorkspaceView,
} from "./beneath/workspace-view.js";
export { probeLayers } from "./layer/layer-probe.js";
export { type LayerRecord, RunLayers } from "./layer/run-layers.js";
export type { WorkspaceLayerPort } from "./layer/workspace-layer-port.js";
export {
  childrenStartedBy,
  createClarifyTool,
  createLoopTools,
  createSubagentTools,
  usesRunControl,
} from "./loop/index.js";
export { connectMcpServers, type McpServerSpec } from "./mcp/index.js";
export type { MediaEndpoint, MediaSettings } from "./media/media-provider.js";
export type { MessageSender } from "./messaging/message-port.js";
export { createMessageSender, RECIPIENTS_KEY } from "./messaging/message-senders.js";
export { BASH_CANDIDATES, locateBash } from "./process/bash-shell.js";
export { ProcessRecords, type ReapReport } from "./process/process-records.js";
export { ProcessSupervisor } from "./process/process-supervisor.js";
export { createBuiltinTools } from "./registry/builtin-tools.js";
export {
  computeIdempotencyKey,
  contextForAttempt,
  contextForExecution,
  createToolExecutionContext,
  type ToolExecutionContextOptions,
} from "./registry/execution-context.js";
export { createExtraTools, type ExtraToolRuntime } from "./registry/extra-tools.js";
export { FrozenSet } from "./registry/frozen-set.js";
export { invokeTool } from "./registry/invoke-tool.js";
export { createToolRegistry, type ToolRegistry } from "./registry/registry.js";
export { createToolSearchTool, unboundToolSearchTool } from "./registry/tool-search-tool.js";
export {
  cgroupsDescription,
  checkWorkspaceOverlap,
  createSandboxHost,
  probeSandbox,
  type SandboxHost,
  type SandboxHostOptions,
  type SandboxNetworkPolicy,
} from "./sandbox/index.js";
export { type ArchivedRun, RedisSessionArchive } from "./sessions/session-archive.js";
export {
  createSessionSearchTool,
  type SessionArchive,
  type TranscriptEntry,
} from "./sessions/session-search.js";
export type { HostPolicy, WebFetchOptions } from "./web/web-ports.js";
export type { WebSearchSettings } from "./web/web-search.js";
