import { isAbsolute, resolve } from "node:path";
import type { EchoRunnerConfig } from "../config/index.js";
import type { HostResolver } from "../guard/index.js";
import type { DeepReadonly } from "../shared/index.js";
import { checkWorkspaceOverlap, createSandboxHost, type SandboxHost } from "../tools/index.js";
import { webFetchOptionsFromConfig } from "./tools-from-config.js";

/** What {@link sandboxFromConfig} needs besides config. */
export interface SandboxFromConfigOptions {
  /** The runner's config files and data dir (a workspace may not overlap them). */
  readonly protectedPaths: readonly string[];
  readonly resolver: HostResolver;
  /** Where relative agent workspaces resolve (the runner's base dir). */
  readonly baseDir: string;
}

/**
 * The sandbox host of `tools.exec.host: sandbox`, from config: `tools.exec.sandbox.*` limits, the
 * network of `execution.network_policy` (deny → none; restricted / allow → the filtering proxy
 * with the SSRF check, the host policy and `execution.allowed_hosts`). Every configured agent
 * workspace is checked now: one that overlaps the runner's own directories or a system directory
 * is a start-up error (RunnerError CONFIG_INVALID). Undefined for any other host.
 */
export function sandboxFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  options: SandboxFromConfigOptions,
): SandboxHost | undefined {
  if (config.tools.exec.host !== "sandbox") return undefined;
  for (const [name, agent] of Object.entries(config.agents)) {
    const workspace = isAbsolute(agent.workspace)
      ? agent.workspace
      : resolve(options.baseDir, agent.workspace);
    checkWorkspaceOverlap(workspace, options.protectedPaths, `agents.${name}.workspace`);
  }
  const s = config.tools.exec.sandbox;
  return createSandboxHost({
    limits: {
      uid: s.uid,
      cpuSeconds: s.cpu_seconds,
      memoryMb: s.memory_mb,
      maxProcesses: s.max_processes,
      fileSizeMb: s.file_size_mb,
      openFiles: s.open_files,
      tmpMb: s.tmp_mb,
    },
    network: config.execution.network_policy,
    egress: {
      ...webFetchOptionsFromConfig(config, options.resolver),
      allowedHosts: config.execution.allowed_hosts,
    },
    runnerDirs: options.protectedPaths,
  });
}
