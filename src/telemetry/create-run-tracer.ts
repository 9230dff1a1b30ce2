import { NOOP_RUN_TRACER, type RunTracer } from "../agent/index.js";
import type { Logger } from "../logging/index.js";
import type { DescribeModel } from "./otel-run-tracer.js";
import { resolveOtelSettings, shownEndpoint } from "./otel-settings.js";

/** Options for {@link createRunTracer}. */
export interface CreateRunTracerOptions {
  /** The process environment: the OTEL_* variables decide (see resolveOtelSettings). */
  env: NodeJS.ProcessEnv;
  describeModel: DescribeModel;
  logger: Logger;
}

/**
 * The worker's run tracer: {@link NOOP_RUN_TRACER} when no OTLP endpoint is set (no OpenTelemetry
 * module is even loaded, so tracing costs nothing), else spans batched and POSTed as OTLP/HTTP JSON.
 * Throws TELEMETRY_CONFIG_INVALID for a variable that is set but unusable.
 */
export async function createRunTracer(options: CreateRunTracerOptions): Promise<RunTracer> {
  const settings = resolveOtelSettings(options.env);
  if (!settings.enabled) return NOOP_RUN_TRACER;
  // Loaded only here: a worker without an endpoint never loads the SDK.
  const { startOtelRunTracer } = await import("./start-otel.js");
  const tracer = await startOtelRunTracer(settings, options.describeModel, options.logger);
  options.logger.info(
    { endpoint: shownEndpoint(settings.url), serviceName: settings.serviceName },
    "exporting run traces over OTLP",
  );
  return tracer;
}
