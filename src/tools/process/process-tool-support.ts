import { stat } from "node:fs/promises";
import {
  type ExecHost,
  PASSTHROUGH,
  type ToolExecutionContext,
  type ToolPermissionDecision,
  type ToolReadiness,
  type ToolResult,
  toolFailure,
} from "../../catalog/index.js";
import { assertNever, type Clock, RunnerError } from "../../shared/index.js";
import { viewedPath } from "../beneath/workspace-view.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import {
  type FencedPath,
  fenceOf,
  isPathInside,
  type PathFenceFactory,
  realWorkspace,
} from "../path-fence-port.js";
import type { SandboxHost } from "../sandbox/index.js";
import { bashReadiness } from "./bash-shell.js";
import { childEnv } from "./child-env.js";
import type { CommandLaunch } from "./command-launch.js";
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

/** The longest command string accepted (the command guard's own limit). */
export const MAX_COMMAND_CHARS = 100_000;

/**
 * Whether exec-class tools can run: on the local host with bash found (see bash-shell); in the
 * sandbox only when bubblewrap can make one here (never a silent fallback to the host); a remote
 * host is not implemented.
 */
export function execReadiness(host: ExecHost, sandbox?: SandboxHost): ToolReadiness {
  switch (host) {
    case "local": {
      const bash = bashReadiness();
      if (!bash.ready) return bash;
      return { ready: true, detail: `ready (tools.exec.host is local; ${bash.detail})` };
    }
    case "sandbox":
      return (
        sandbox?.readiness() ?? {
          ready: false,
          detail: "tools.exec.host is sandbox, but this worker built no sandbox host",
        }
      );
    case "remote":
      return {
        ready: false,
        detail: `tools.exec.host is ${host}, and remote execution is not implemented; set it to sandbox or local`,
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
  const fence = fenceOf(options.pathFence, ctx);
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
  const info = await stat(viewedPath(verdict.resolvedPath)).catch(() => undefined);
  if (!info?.isDirectory()) {
    return {
      ok: false,
      result: toolFailure("business", `cwd ${JSON.stringify(shown)} is not an existing directory`),
    };
  }
  return { ok: true, path: verdict.resolvedPath };
}

/**
 * `command` (program and arguments) as the configured host runs it: as is on the local host, inside
 * a fresh bubblewrap sandbox (one per call, one per process) on the sandbox host. Throws
 * TOOL_NOT_READY when the host cannot run it (never falls back to the local host).
 */
export async function launchCommand(
  options: ProcessToolOptions,
  ctx: ToolExecutionContext,
  cwd: string,
  env: Record<string, string>,
  command: readonly [string, ...string[]],
  codeDir?: string,
): Promise<CommandLaunch> {
  const host = options.execHost;
  switch (host) {
    case "local":
      return { file: command[0], args: command.slice(1), env, dispose: async () => undefined };
    case "sandbox": {
      const sandbox = options.sandbox;
      const readiness = execReadiness(host, sandbox);
      if (sandbox === undefined || !readiness.ready)
        throw new RunnerError("TOOL_NOT_READY", readiness.detail);
      const workspace = realWorkspace(fenceOf(options.pathFence, ctx));
      return sandbox.prepare({ workspace, cwd, env, command, ...(codeDir === undefined ? {} : { codeDir }) });
    }
    case "remote":
      throw new RunnerError("TOOL_NOT_READY", execReadiness(host).detail);
    default:
      return assertNever(host, "tools.exec.host");
  }
}

/**
 * {@link launchCommand} as a tool result: a host that cannot run the command (sandbox not ready, a
 * workspace the sandbox refuses) is a `not_ready` failure naming why, never a run on another host.
 */
export async function launchForTool(
  options: ProcessToolOptions,
  ctx: ToolExecutionContext,
  cwd: string,
  command: readonly [string, ...string[]],
  codeDir?: string,
): Promise<{ ok: true; launch: CommandLaunch } | { ok: false; result: ToolResult }> {
  const env = processEnv(options, cwd);
  // In the sandbox the tool's own credentials (tools.credentials) join the scrubbed environment.
  const withCredentials = options.execHost === "sandbox" ? { ...env, ...ctx.credentials } : env;
  try {
    return { ok: true, launch: await launchCommand(options, ctx, cwd, withCredentials, command, codeDir) };
  } catch (err) {
    if (err instanceof RunnerError) return { ok: false, result: toolFailure("not_ready", err.message) };
    throw err;
  }
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
  const fence = fenceOf(options.pathFence, ctx);
  const verdict = fence.check(cwd, "read");
  if (verdict.verdict === "deny") return { behavior: "deny", reason: verdict.reason };
  const workspace = realWorkspace(fence);
  if (!isPathInside(workspace, verdict.resolvedPath)) {
    return { behavior: "deny", reason: `cwd ${verdict.resolvedPath} is outside the workspace ${workspace}` };
  }
  return PASSTHROUGH;
}
