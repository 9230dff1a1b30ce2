import {
  type ExecHost,
  type ToolExecutionContext,
  type ToolReadiness,
  type ToolResult,
  toolFailure,
} from "../../catalog/index.js";
import { assertNever, RunnerError } from "../../shared/index.js";
import { fenceOf, realWorkspace } from "../path-fence-port.js";
import type { SandboxHost } from "../sandbox/index.js";
import { bashReadiness } from "./bash-shell.js";
import { childEnv } from "./child-env.js";
import type { CommandLaunch } from "./command-launch.js";
import type { ProcessToolOptions } from "./process-tool-options.js";

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
