import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { type ConfigSource, PACKAGE_CONFIG_DIR } from "../../../config/index.js";

/** The demo configuration shipped with the package (config/demo.yaml). */
export const DEMO_CONFIG_PATH = join(PACKAGE_CONFIG_DIR, "demo.yaml");

/** The agent of config/demo.yaml whose workspace lives under the data dir. */
export const DEMO_AGENT = "demo";

/**
 * Whether the demo is the configuration in use: only when the operator has named none of their
 * own — no --config, no $ECHO_RUNNER_CONFIG and no config/echo-runner.yaml under the working
 * directory. `start` then runs it, and every other command judges and reaches what it runs.
 */
export function usesDemoConfig(configFlag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): boolean {
  return !configFlag && !env.ECHO_RUNNER_CONFIG && !existsSync(join(cwd, "config", "echo-runner.yaml"));
}

/** The data dir a command uses: its --data-dir, else $ECHO_RUNNER_DATA_DIR, else ./data. */
export function dataDirOf(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(cwd, flag ?? env.ECHO_RUNNER_DATA_DIR ?? "data");
}

/** The demo workspace under the data dir. */
export function demoWorkspace(dataDir: string): string {
  return join(dataDir, "demo-workspace");
}

/**
 * The source that moves the demo agent's workspace under the data dir (it sits after the demo file,
 * so `config show` names the demo file as the origin).
 */
export function demoWorkspaceSource(dataDir: string): ConfigSource {
  return {
    kind: "project",
    origin: DEMO_CONFIG_PATH,
    data: { agents: { [DEMO_AGENT]: { workspace: demoWorkspace(dataDir) } } },
  };
}
