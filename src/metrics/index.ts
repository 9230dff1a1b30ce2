export { createMetricsCollector, type MetricsCollector, type MetricsCollectorOptions } from "./collector.js";
export {
  APPROVAL_WAIT_BUCKETS,
  COUNTER_FAMILIES,
  type CounterFamily,
  QUEUE_STATES,
  type QueueStateLabel,
  RUN_OUTCOMES,
  type RunOutcomeLabel,
  UNKNOWN_TOOL_LABEL,
} from "./families.js";
export { MetricsKeys } from "./keys.js";
export { meteredAuditSink } from "./metered-audit.js";
export { queueDepths } from "./queue-depths.js";
export { RunnerMetrics, type RunnerMetricsOptions } from "./recorder.js";
