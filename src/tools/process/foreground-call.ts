import Type from "typebox";
import { type ToolExecutionContext, type ToolResult, toolFailure } from "../../catalog/index.js";
import { launchIdentity } from "./command-launch.js";
import { launchForTool } from "./host-launch.js";
import type { ProcessToolOptions } from "./process-tool-options.js";
import { commandResult, runForeground } from "./run-command.js";

/**
 * The arguments exec and execute_code share (working directory, timeout, stdin), worded for what
 * the tool runs ("command" or "program") so each tool's schema reads naturally.
 */
export function foregroundCallFields(subject: "command" | "program") {
  return {
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "Working directory inside the workspace (default: the workspace)",
      }),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86_400,
        description: `Kill the ${subject} after this many seconds (default 60)`,
      }),
    ),
    stdin: Type.Optional(
      Type.String({ maxLength: 1_048_576, description: `Text written to the ${subject}'s standard input` }),
    ),
  };
}

/** One foreground call of an exec-class tool, its cwd and timeout already resolved. */
export interface ForegroundCall {
  /** Real path of the working directory (inside the workspace). */
  readonly cwd: string;
  /** Program and arguments as the local host would run them. */
  readonly command: readonly [string, ...string[]];
  /** execute_code's source directory (mounted read-only in the sandbox). */
  readonly codeDir?: string;
  readonly stdin?: string;
  readonly timeoutSeconds: number;
}

/**
 * Runs `call` on the configured exec host and waits for it: launch (a host that cannot run it is a
 * `not_ready` result), run in its own process group with the timeout and output cap, then release
 * what the launch started whatever happened.
 */
export async function runForegroundCall(
  options: ProcessToolOptions,
  ctx: ToolExecutionContext,
  call: ForegroundCall,
): Promise<ToolResult> {
  const launched = await launchForTool(options, ctx, call.cwd, call.command, call.codeDir);
  if (!launched.ok) return launched.result;
  const { launch } = launched;
  try {
    const outcome = await runForeground(options.processes, ctx.executionId, launch.file, launch.args, {
      cwd: launch.cwd ?? call.cwd,
      env: launch.env,
      ...launchIdentity(launch),
      ...(call.stdin === undefined ? {} : { input: call.stdin }),
      timeoutMs: call.timeoutSeconds * 1000,
      outputMaxBytes: options.limits.execOutputMaxBytes,
      clock: options.clock,
    });
    const result = commandResult(outcome, call.timeoutSeconds);
    // A sandbox-wide total (memory, processes) killed a process or refused a fork: the call fails
    // naming the limit, even when the command went on and exited 0, since its work is incomplete.
    const reached = launch.limitReached?.();
    if (reached === undefined) return result;
    const how = result.success ? "the command finished, but" : `${result.error}:`;
    return {
      ...toolFailure("business", `${how} ${reached}`, { ...(result.data as object), limit: reached }),
      output: result.output,
    };
  } finally {
    await launch.dispose();
  }
}
