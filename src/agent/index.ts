export { auditTrailSink } from "./adapters/audit-sink.js";
export { redisSpillStore } from "./adapters/redis-spill-store.js";
export { smartApproverFromModel } from "./adapters/smart-approver.js";
export { storeApprovals } from "./adapters/store-approvals.js";
export {
  BUDGET_LIMITS,
  type BudgetExhaustion,
  type BudgetLimit,
  type ModelPrice,
  type RunBudget,
  redisUsageIndex,
  stricterBudget,
  type UsageIndex,
  type UsageTotals,
  usageOfRecords,
} from "./budget/index.js";
export { batchMode, runToolBatch } from "./execution/batch.js";
export {
  TOOL_ERROR_MAX_CHARS,
  TOOL_RESULT_MAX_CHARS,
  truncateError,
  truncateText,
} from "./execution/result-limits.js";
export { retryDelayMs, shouldRetryTool } from "./execution/retry.js";
export { OPAQUE_FIELDS, SENSITIVE_FIELDS, sanitizeText, sanitizeValue } from "./execution/sanitize.js";
export {
  type AnthropicClientOptions,
  createAnthropicClient,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
} from "./model/anthropic-client.js";
export {
  CHAT_ROLES,
  ChatMessage,
  type ChatRole,
  FINISH_REASONS,
  type FinishReason,
  type ModelClient,
  type ModelRequest,
  ModelResponse,
  ModelToolCall,
  type ModelToolSpec,
  ModelUsage,
  parseToolArguments,
} from "./model/model-client.js";
export {
  isRetryableModelErrorCode,
  shouldRetryModelError,
} from "./model/model-errors.js";
export {
  completeWithRetries,
  DEFAULT_MODEL_RETRY,
  type ModelRetry,
  type ModelRetryPolicy,
} from "./model/model-retry.js";
export {
  createOpenAiClient,
  DEFAULT_MODEL_TIMEOUT_MS,
  type OpenAiClientOptions,
} from "./model/openai-client.js";
export {
  createScriptedModelClient,
  loadScriptedModel,
  scriptedModelFromYaml,
} from "./model/scripted-client.js";
export {
  parseScriptedScript,
  ScriptedScript,
  ScriptedToolCall,
  ScriptedTurn,
} from "./model/scripted-script.js";
export { cancelJournalKey, isCancelJournalKey } from "./operate/cancel-record.js";
export {
  type CancelResult,
  type OperatorActor,
  type RestartResult,
  RunOperations,
  type RunOperationsOptions,
} from "./operate/run-operations.js";
export { type RunAgentOptions, runAgent } from "./run/agent-run.js";
export { callKeyOf } from "./run/approval-hash.js";
export { childRunId } from "./run/child-payload.js";
export { LANDING_REQUEST_TOOL } from "./run/land-layer.js";
export { ParkSignal } from "./run/park-signal.js";
export type {
  ApprovalPort,
  ApprovalState,
  AuditSink,
  CallGuard,
  ChildrenPort,
  ChildState,
  ParkRequest,
  SpillStore,
} from "./run/ports.js";
export {
  RUN_STATUSES,
  type RunDeps,
  type RunLimits,
  type RunOutcome,
  type RunStatus,
} from "./run/run-contract.js";
export {
  type AttemptEnd,
  type AttemptStart,
  type AttemptTrace,
  type ModelCallTrace,
  NOOP_RUN_TRACER,
  type RunTraceEnd,
  type RunTracer,
  type ToolCallStart,
  type ToolCallTrace,
} from "./run/run-tracer.js";
export { archiveRun, type SessionRecorder, sessionTranscript } from "./run/session-transcript.js";
export { shouldRetryRun } from "./run/should-retry.js";
export {
  type BeforeToolBatchHook,
  batchVeto,
  type ToolBatchVerdict,
  type ToolBatchView,
} from "./run/tool-batch-hook.js";
