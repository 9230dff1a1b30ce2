// Traces of runs (OpenTelemetry, GenAI semantic conventions): the RunTracer the composition root
// gives the run loop when an OTLP endpoint is configured. The SDK is loaded only then.
export { createRunTracer } from "./create-run-tracer.js";
export type { DescribeModel } from "./otel-run-tracer.js";
export { resolveOtelSettings } from "./otel-settings.js";
export { runSpanId } from "./span-ids.js";
