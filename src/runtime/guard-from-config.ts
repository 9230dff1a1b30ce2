import { homedir } from "node:os";
import { resolve } from "node:path";
import type { EchoRunnerConfig } from "../config/index.js";
import {
  type CallGuard,
  commandPathOperands,
  commandRunFiles,
  createCallGuard,
  createExecPolicy,
  createPathFence,
  type HostResolver,
  type PathFence,
} from "../guard/index.js";
import { createCommandGuard, nodeFsView, pathLookup, systemHostResolver } from "../platform/index.js";
import type { DeepReadonly } from "../shared/index.js";

/** Options for {@link callGuardFromConfig}. */
export interface CallGuardFromConfigOptions {
  env: NodeJS.ProcessEnv;
  /** Paths read-only in every mode: the runner's config file(s) and data directory. */
  protectedPaths: readonly string[];
  /** DNS for the SSRF check; the system resolver by default. */
  resolver?: HostResolver;
  /** The command of a run's background process (see CallGuardOptions.processCommand). */
  processCommand?: (executionId: string, id: string) => string | undefined;
}

/**
 * The guard of a worker (or of `gate check`), from config: the command guard (tree-sitter, parsed
 * once at start), the exec policy with safe bins, the SSRF check and the path fence per workspace.
 * Operator safe-bin profiles are compiled here, so a bad one fails at start-up.
 */
export async function callGuardFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  options: CallGuardFromConfigOptions,
): Promise<CallGuard> {
  const commandGuard = await createCommandGuard();
  const execPolicy = createExecPolicy(commandGuard, {
    security: config.tools.exec.security,
    ask: config.tools.exec.ask,
    safeBins: config.tools.exec.safe_bins,
    // Relative program paths resolve against "/", never into a trusted directory by accident.
    resolveBinary: pathLookup(options.env, "/"),
    host: config.tools.exec.host,
  });
  const fences = new Map<string, PathFence>();
  const fs = nodeFsView();
  return createCallGuard({
    execPolicy,
    execHost: config.tools.exec.host,
    resolver: options.resolver ?? systemHostResolver(),
    networkPolicy: config.execution.network_policy,
    allowedHosts: config.execution.allowed_hosts,
    ...(options.processCommand ? { processCommand: options.processCommand } : {}),
    commandPaths: (command) => commandPathOperands(commandGuard.analyse(command)),
    commandRunFiles: (command, dialect) => commandRunFiles(commandGuard.analyse(command, { dialect })),
    pathFence(workspace, workspaceOnly) {
      // The run's fence is the strictest of restrict_to_workspace and its session mode.
      const restrict = config.tools.restrict_to_workspace || workspaceOnly;
      const cacheKey = `${restrict ? "fenced" : "open"}\u0000${workspace}`;
      let fence = fences.get(cacheKey);
      if (!fence) {
        fence = createPathFence({
          workspaceRoot: resolve(workspace),
          restrictToWorkspace: restrict,
          ...(config.tools.safe_write_root ? { safeWriteRoot: config.tools.safe_write_root } : {}),
          homeDir: options.env.HOME ?? homedir(),
          protectedPaths: options.protectedPaths,
          fs,
        });
        fences.set(cacheKey, fence);
      }
      return fence;
    },
  });
}
