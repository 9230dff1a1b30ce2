import { type LoadConfigOptions, type LoadedConfig, loadConfig } from "../../../config/index.js";
import type { CliIo } from "../../io.js";
import { DEMO_CONFIG_PATH, dataDirOf, demoWorkspaceSource, usesDemoConfig } from "./demo-config.js";

/** Said on stderr when a command falls back to the demo, so a reader knows what was judged. */
export const USING_DEMO_CONFIG =
  "using the demo configuration config/demo.yaml, which `start` (npm start) runs in this folder while no configuration of your own is given (--config FILE, ECHO_RUNNER_CONFIG=FILE, or config/echo-runner.yaml)";

/** Where a command's config comes from: what it was given, or the demo `npm start` runs here. */
export interface CliConfigChoice {
  options: LoadConfigOptions;
  /** True when the demo stands in for a configuration the operator did not name. */
  demo: boolean;
}

/**
 * The config a CLI command judges and reaches: the one named (--config, $ECHO_RUNNER_CONFIG,
 * config/echo-runner.yaml), else the demo that `npm start` in this folder runs (with its workspace
 * under the data dir, as `start` moves it), so that `jobs list` lists the runs the demo made and
 * `policy explain` judges the policy the demo's runs meet, not the built-in defaults nobody runs.
 */
export function cliConfigChoice(
  io: Pick<CliIo, "env" | "cwd">,
  configPath: string | undefined,
  dataDir: string = dataDirOf(undefined, io.env, io.cwd),
): CliConfigChoice {
  if (!usesDemoConfig(configPath, io.env, io.cwd)) {
    return { options: { configPath, env: io.env, cwd: io.cwd }, demo: false };
  }
  return {
    options: {
      configPath: DEMO_CONFIG_PATH,
      env: io.env,
      cwd: io.cwd,
      extraSources: [demoWorkspaceSource(dataDir)],
    },
    demo: true,
  };
}

/** {@link cliConfigChoice}, loaded; names the demo on stderr when it stands in. */
export async function loadCliConfig(
  io: CliIo,
  configPath: string | undefined,
  load: (options: LoadConfigOptions) => Promise<LoadedConfig> = loadConfig,
): Promise<LoadedConfig> {
  const choice = cliConfigChoice(io, configPath);
  if (choice.demo) io.stderr(`note: ${USING_DEMO_CONFIG}\n`);
  return load(choice.options);
}
