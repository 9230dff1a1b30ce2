import type { RunTracer } from "../agent/index.js";
import type { EchoRunnerConfig } from "../config/index.js";
import type { Logger } from "../logging/index.js";
import type { DeepReadonly } from "../shared/index.js";
import { createRunTracer, type DescribeModel, resolveOtelSettings } from "../telemetry/index.js";

/** How each model of config `models` appears on spans: provider, the provider's model name, server. */
function describeModels(config: DeepReadonly<EchoRunnerConfig>): DescribeModel {
  return (name) => {
    const model = config.models[name];
    if (!model) return undefined;
    if (model.provider === "scripted") return { provider: "echo_runner.scripted", model: name };
    const url = new URL(model.base_url);
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
    return { provider: model.provider, model: model.model, serverAddress: url.hostname, serverPort: port };
  };
}

/**
 * The worker's run tracer from the OTEL_* environment variables (docs/OPERATING.md "Traces"): off
 * (the no-op tracer, no SDK loaded) unless an OTLP endpoint is set; TELEMETRY_CONFIG_INVALID for a
 * value it cannot use.
 */
export function runTracerFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<RunTracer> {
  return createRunTracer({ env, describeModel: describeModels(config), logger });
}

/**
 * Throws TELEMETRY_CONFIG_INVALID for an OTEL_* variable the worker could not use: called before
 * anything starts, so a typo in an endpoint stops `start` at once instead of after Redis is up.
 */
export function checkTraceSettings(env: NodeJS.ProcessEnv): void {
  resolveOtelSettings(env);
}
