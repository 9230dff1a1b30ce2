export { auditTrailSink } from "./adapters/audit-sink.js";
export { redisSpillStore } from "./adapters/redis-spill-store.js";
export { smartApproverFromModel } from "./adapters/smart-approver.js";
export { storeApprovals } from "./adapters/store-approvals.js";
export {
  type RunBudget,
  redisUsageIndex,
  stricterBudget,
  type UsageTotals,
  usageOfRecords,
} from "./budget/index.js";
export { truncateText } from "./execution/result-limits.js";
export { sanitizeText, sanitizeValue } from "./execution/sanitize.js";
export { createAnthropicClient, DEFAULT_ANTHROPIC_MAX_TOKENS } from "./model/anthropic-client.js";
export { type FinishReason, type ModelClient, ModelResponse, ModelUsage } from "./model/model-client.js";
export { createOpenAiClient } from "./model/openai-client.js";
export { loadScriptedModel, scriptedModelFromYaml } from "./model/scripted-client.js";
export { isCancelJournalKey } from "./operate/cancel-record.js";
export { type OperatorActor, RunOperations } from "./operate/run-operations.js";
export { runAgent } from "./run/agent-run.js";
export { callKeyOf } from "./run/approval-hash.js";
export { LANDING_REQUEST_TOOL } from "./run/land-layer.js";
export { ParkSignal } from "./run/park-signal.js";
export type { ApprovalPort, AuditSink, CallGuard } from "./run/ports.js";
export type { RunDeps, RunLimits, RunOutcome } from "./run/run-contract.js";
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
export { archiveRun, sessionTranscript } from "./run/session-transcript.js";
export { shouldRetryRun } from "./run/should-retry.js";
export type { ToolBatchView } from "./run/tool-batch-hook.js";
