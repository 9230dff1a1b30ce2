// Traces of runs (OpenTelemetry, GenAI semantic conventions): the RunTracer the composition root
// gives the run loop when an OTLP endpoint is configured. The SDK is loaded only then.
export { type CreateRunTracerOptions, createRunTracer } from "./create-run-tracer.js";
export type { DescribeModel, ModelDescription } from "./otel-run-tracer.js";
export { type OtelSettings, resolveOtelSettings } from "./otel-settings.js";
export { runSpanId } from "./span-ids.js";
