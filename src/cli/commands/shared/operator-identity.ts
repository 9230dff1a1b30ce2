import type { EchoRunnerConfig } from "../../../config/index.js";
import { type DeepReadonly, RunnerError } from "../../../shared/index.js";

/**
 * Who the CLI records as the approver: config `operator`, else $USER. Fails when neither is set,
 * so no decision is ever recorded under an empty or made-up name.
 */
export function operatorIdentity(config: DeepReadonly<EchoRunnerConfig>, env: NodeJS.ProcessEnv): string {
  const id = config.operator || env.USER || "";
  if (id.length === 0) {
    throw new RunnerError(
      "CLI_USAGE",
      "no operator identity: set `operator` in the config or the USER variable",
    );
  }
  return id;
}
