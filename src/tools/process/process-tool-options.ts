import type { ExecHost } from "../../catalog/index.js";
import type { Clock } from "../../shared/index.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import type { PathFenceFactory } from "../path-fence-port.js";
import type { SandboxHost } from "../sandbox/index.js";
import type { ProcessSupervisor } from "./process-supervisor.js";

/** What exec, execute_code and process share. */
export interface ProcessToolOptions {
  pathFence: PathFenceFactory;
  processes: ProcessSupervisor;
  /** `tools.exec.host`. */
  execHost: ExecHost;
  /** The worker's environment (filtered by `envAllow`). */
  env: NodeJS.ProcessEnv;
  /** Allow-listed variable names (from resolveEnvAllow). */
  envAllow: readonly string[];
  limits: BuiltinToolLimits;
  clock: Clock;
  /** The sandbox host (`tools.exec.host: sandbox`); without it a sandbox host is not ready. */
  sandbox?: SandboxHost;
}
