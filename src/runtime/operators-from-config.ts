import type { EchoRunnerConfig } from "../config/index.js";
import { assertTokenStrength, OperatorCredentials } from "../http/index.js";
import { type DeepReadonly, RunnerError } from "../shared/index.js";

/**
 * The named operators of config: every approver with a `token_env`, holding that variable's token.
 * A `token_env` whose variable is unset or shorter than 32 characters is a start-up error naming the
 * approver and the variable (fail closed: a placeholder token never guards a decision).
 */
export function operatorsFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
): OperatorCredentials {
  const tokens = config.approvers.flatMap((approver, i) => {
    if (!approver.token_env) return [];
    const source = `approvers[${i}].token_env (${approver.token_env}, the token of "${approver.id}")`;
    const token = env[approver.token_env];
    if (token === undefined || token === "") {
      throw new RunnerError(
        "CONFIG_INVALID",
        `${source} is not set: put the person's own token (at least 32 characters) in that variable, or remove token_env`,
        { data: { variable: approver.token_env } },
      );
    }
    return [{ id: approver.id, token, source }];
  });
  return new OperatorCredentials(tokens);
}

/**
 * The read-only token (`http.api_token_env`): reads `/metrics`, decides nothing. Unset = none; set
 * but shorter than 32 characters, or equal to an operator's token, is a start-up error.
 */
export function metricsTokenFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  operators: OperatorCredentials,
): string | undefined {
  const token = env[config.http.api_token_env];
  if (token === undefined || token === "") return undefined;
  const source = `http.api_token_env (${config.http.api_token_env})`;
  assertTokenStrength(token, source);
  if (operators.identify(token) !== null) {
    throw new RunnerError(
      "CONFIG_INVALID",
      `${source} holds the same token as an operator: the read-only token must not be anyone's own token`,
    );
  }
  return token;
}
