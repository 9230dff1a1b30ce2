import { stat } from "node:fs/promises";
import { assertNever, type Clock } from "../shared/index.js";
import { bashReadiness } from "./bash-shell.js";
import type { BuiltinToolLimits, ExecHost } from "./builtin-runtime.js";
import { childEnv } from "./child-env.js";
import type { ToolExecutionContext } from "./execution-context.js";
import { type FencedPath, isPathInside, type PathFenceFactory, realWorkspace } from "./path-fence-port.js";
import type { ProcessSupervisor } from "./process-supervisor.js";
import { PASSTHROUGH, type ToolPermissionDecision, type ToolReadiness } from "./tool.js";
import { toolFailure } from "./tool-result.js";

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
}

/** The longest command string accepted (the command guard's own limit). */
export const MAX_COMMAND_CHARS = 100_000;

/**
 * Exec-class tools run only on a local host (remote and sandbox hosts are not implemented), and
 * only with bash found (see bash-shell).
 */
export function execReadiness(host: ExecHost): ToolReadiness {
  switch (host) {
    case "local": {
      const bash = bashReadiness();
      if (!bash.ready) return bash;
      return { ready: true, detail: `ready (tools.exec.host is local; ${bash.detail})` };
    }
    case "remote":
    case "sandbox":
      return {
        ready: false,
        detail: `tools.exec.host is ${host}, and only local execution is implemented; set it to local to run processes on this host`,
      };
    default:
      return assertNever(host, "tools.exec.host");
  }
}

/**
 * The working directory of a process: the fence must allow it and, whatever
 * `restrict_to_workspace` says, it must be inside the workspace and an existing directory.
 */
export async function resolveProcessCwd(
  options: ProcessToolOptions,
  ctx: ToolExecutionContext,
  cwd: string | undefined,
): Promise<FencedPath> {
  const fence = options.pathFence(ctx.workspace);
  const shown = cwd ?? ".";
  const verdict = fence.check(shown, "read");
  const workspace = realWorkspace(fence);
  if (verdict.verdict === "deny" || !isPathInside(workspace, verdict.resolvedPath)) {
    const reason =
      verdict.verdict === "deny"
        ? verdict.reason
        : `${verdict.resolvedPath} is outside the workspace ${workspace}`;
    return {
      ok: false,
      result: toolFailure(
        "denied",
        `cwd ${JSON.stringify(shown)} is not allowed: ${reason}; processes run inside the workspace`,
        {
          rule: verdict.verdict === "deny" ? verdict.rule : "path.outside-workspace",
        },
      ),
    };
  }
  const info = await stat(verdict.resolvedPath).catch(() => undefined);
  if (!info?.isDirectory()) {
    return {
      ok: false,
      result: toolFailure("business", `cwd ${JSON.stringify(shown)} is not an existing directory`),
    };
  }
  return { ok: true, path: verdict.resolvedPath };
}

/** The scrubbed environment of a tool's process, with PWD set to its cwd. */
export function processEnv(options: ProcessToolOptions, cwd: string): Record<string, string> {
  return childEnv(options.env, options.envAllow, { PWD: cwd });
}

/** The timeout of one call in seconds, or a `validation` failure naming `timeout_seconds`. */
export function resolveTimeout(
  limits: BuiltinToolLimits,
  requested: number | undefined,
): { ok: true; seconds: number } | { ok: false; result: ReturnType<typeof toolFailure> } {
  const seconds = requested ?? limits.execDefaultTimeoutSeconds;
  if (seconds > limits.execMaxTimeoutSeconds) {
    return {
      ok: false,
      result: toolFailure(
        "validation",
        `timeout_seconds must be at most ${limits.execMaxTimeoutSeconds}, got ${seconds}`,
        {
          fields: [{ field: "timeout_seconds", problem: `must be <= ${limits.execMaxTimeoutSeconds}` }],
        },
      ),
    };
  }
  return { ok: true, seconds };
}

/**
 * The tool-level timeout of exec-class tools: longer than the longest call may ask for plus the
 * kill grace, so the tool's own group kill always happens before the run loop gives up on it.
 */
export function execToolTimeoutSeconds(limits: BuiltinToolLimits): number {
  return limits.execMaxTimeoutSeconds + Math.ceil(limits.killGraceMs / 1000) + 5;
}

/** exec-class tools' own opinion on a call: deny a cwd the process could not run in. */
export function cwdPermission(
  options: ProcessToolOptions,
  ctx: ToolExecutionContext,
  cwd: string | undefined,
): ToolPermissionDecision {
  if (cwd === undefined) return PASSTHROUGH;
  const fence = options.pathFence(ctx.workspace);
  const verdict = fence.check(cwd, "read");
  if (verdict.verdict === "deny") return { behavior: "deny", reason: verdict.reason };
  const workspace = realWorkspace(fence);
  if (!isPathInside(workspace, verdict.resolvedPath)) {
    return { behavior: "deny", reason: `cwd ${verdict.resolvedPath} is outside the workspace ${workspace}` };
  }
  return PASSTHROUGH;
}
