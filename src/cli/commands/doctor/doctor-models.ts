import { createAnthropicClient, createOpenAiClient, type ModelClient } from "../../../agent/index.js";
import { type EchoRunnerConfig, optionalSecret } from "../../../config/index.js";
import { type DeepReadonly, isRunnerError } from "../../../shared/index.js";
import { type DoctorCheck, fail, ok } from "./doctor-check.js";

type ModelConfig = DeepReadonly<EchoRunnerConfig["models"][string]>;

/** The fix of each failure a probe can report, by the client's error code. */
function fixFor(code: string, name: string, model: ModelConfig): string {
  const key = "api_key_env" in model ? model.api_key_env : "";
  switch (code) {
    case "MODEL_AUTH_FAILED":
      return `set a key the server accepts in ${key} (models.${name}.api_key_env)`;
    case "MODEL_REQUEST_REJECTED":
      return `check models.${name}.model (the server's name for the model) and models.${name}.base_url`;
    default:
      return `check that models.${name}.base_url is reachable from here, then probe again`;
  }
}

/** One client per configured HTTP model, built as the worker builds it (timeout: the doctor's). */
function clientOf(model: ModelConfig, apiKey: string, timeoutMs: number): ModelClient | undefined {
  if (model.provider === "scripted") return undefined;
  const options = {
    baseUrl: model.base_url,
    model: model.model,
    apiKey,
    timeoutMs,
    ...(model.max_output_tokens ? { maxTokens: model.max_output_tokens } : {}),
  };
  return model.provider === "anthropic" ? createAnthropicClient(options) : createOpenAiClient(options);
}

/**
 * `doctor --probe-models`: one minimal request per configured model (one short user message, no
 * tools), so a wrong key or model name fails here instead of in the first run. A scripted model
 * sends nothing and is ok; a model whose key variable is unset fails without a request.
 */
export async function probeModels(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<DoctorCheck[]> {
  return Promise.all(
    Object.entries(config.models).map(async ([name, model]): Promise<DoctorCheck> => {
      const check = `model:${name}`;
      if (model.provider === "scripted") return ok(check, "scripted: nothing to probe");
      const apiKey = optionalSecret(model.api_key_env, env);
      if (!apiKey) {
        return fail(
          check,
          `${model.api_key_env} (models.${name}.api_key_env) is not set: no request was sent`,
          `set ${model.api_key_env} in the environment the runner starts with`,
        );
      }
      const client = clientOf(model, apiKey, timeoutMs);
      try {
        await client?.complete({ messages: [{ role: "user", content: "Reply with OK." }], tools: [] });
        return ok(check, `${model.provider} ${model.model} at ${model.base_url} answered`);
      } catch (err) {
        if (!isRunnerError(err)) throw err;
        return fail(check, `${err.code}: ${err.message}`, fixFor(err.code, name, model));
      }
    }),
  );
}
