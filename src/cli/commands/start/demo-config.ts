import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConfigSource } from "../../../config/index.js";

/** The demo configuration shipped with the package (config/demo.yaml). */
export const DEMO_CONFIG_PATH = fileURLToPath(new URL("../../../../config/demo.yaml", import.meta.url));

/** The files the demo agent finds in its workspace on first start. */
const DEMO_WORKSPACE_TEMPLATE = fileURLToPath(new URL("../../../../config/demo-workspace", import.meta.url));

/** The agent of config/demo.yaml whose workspace lives under the data dir. */
export const DEMO_AGENT = "demo";

/** The demo's schedule id (config/demo.yaml). */
export const DEMO_SCHEDULE = "demo-report";

/**
 * Whether `start` runs the demo: only when the operator has named no configuration of their own —
 * no --config, no $ECHO_RUNNER_CONFIG and no config/echo-runner.yaml under the working directory.
 */
export function usesDemoConfig(configFlag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): boolean {
  return !configFlag && !env.ECHO_RUNNER_CONFIG && !existsSync(join(cwd, "config", "echo-runner.yaml"));
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

/** Creates the demo workspace and copies in the template files it lacks (never overwrites). */
export async function prepareDemoWorkspace(dataDir: string): Promise<string> {
  const dir = demoWorkspace(dataDir);
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(DEMO_WORKSPACE_TEMPLATE)) {
    const target = join(dir, name);
    if (!existsSync(target)) await copyFile(join(DEMO_WORKSPACE_TEMPLATE, name), target);
  }
  return dir;
}

/** What `start` prints on the terminal when the demo is in use: what runs, and how to switch. */
export function demoBanner(workspace: string, publicUrl: string): string {
  return [
    "",
    "DEMO MODE: using the demo configuration config/demo.yaml, because no configuration of your",
    "own was given (--config FILE, ECHO_RUNNER_CONFIG=FILE, or config/echo-runner.yaml).",
    `  - schedule "${DEMO_SCHEDULE}" runs a scripted agent every minute in ${workspace}`,
    "  - it lists and reads files, writes report.md, is denied a cronjob (dangerous, unattended),",
    "    parks for a person's approval before an exec, and delegates a check to a sub-agent",
    `  - the approval mail and its link are printed here (no smtp.host set); pages at ${publicUrl}`,
    `  - fire it now instead of waiting for the minute: npx echo-runner schedules run-now ${DEMO_SCHEDULE} --config config/demo.yaml`,
    "To run your own agents: copy config/demo.yaml to config/echo-runner.yaml and edit it (every key",
    "and its default is in config/default.yaml), or pass --config FILE.",
    "",
    "",
  ].join("\n");
}
