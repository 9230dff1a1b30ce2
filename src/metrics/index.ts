export { createMetricsCollector, type MetricsCollector } from "./collector.js";
export { QUEUE_STATES, type QueueStateLabel } from "./families.js";
export { MetricsKeys } from "./keys.js";
export { meteredAuditSink } from "./metered-audit.js";
export { queueDepths } from "./queue-depths.js";
export { RunnerMetrics } from "./recorder.js";
