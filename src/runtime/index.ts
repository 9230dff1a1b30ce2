export { allowAlwaysFromConfig } from "./allow-always-from-config.js";
export { approvalPolicyFromConfig, approvalsFromConfig } from "./approvals-from-config.js";
export { chatNotifiersFromConfig } from "./chat-notifiers-from-config.js";
export { escalationAuditTrail } from "./escalation-audit.js";
export { callGuardFromConfig } from "./guard-from-config.js";
export { metricsTokenFromConfig, operatorsFromConfig } from "./operators-from-config.js";
export { ownerNotifierFromConfig } from "./owner-notifier-from-config.js";
export type { PartContext } from "./part-context.js";
export { startApprovalPromoter } from "./parts/approval-promoter.js";
export { startHttpPart } from "./parts/http-part.js";
export type { RunningPart } from "./parts/running-part.js";
export { startSchedulerPart } from "./parts/scheduler-part.js";
export { startWorkerPart, warnIfHashesNotCompact } from "./parts/worker-part.js";
export {
  effectiveSessionMode,
  gateConfigFromConfig,
  policyInputFromConfig,
} from "./policy-inputs-from-config.js";
export type {
  ProcessOptions,
  ProcessPart,
  RunningProcess,
  StartProcess,
  StopReport,
} from "./process-starter.js";
export { checkRedisDurability, crashLoss } from "./redis-durability.js";
export { buildRunDeps } from "./run-deps-from-config.js";
export { sandboxFromConfig } from "./sandbox-from-config.js";
export { toolEnvironmentFromProbe } from "./tool-environment-from-probe.js";
export { buildToolSet, toolRegistryFor } from "./tool-set-from-config.js";
export {
  extraToolRuntimeFromConfig,
  hostPolicyFromConfig,
  mcpServersFromConfig,
} from "./tools-from-config.js";
export { checkTraceSettings, runTracerFromConfig } from "./tracer-from-config.js";
export { layersDir } from "./workspace-layers-from-config.js";
