import { type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import type { Clock } from "../../shared/index.js";
import { CappedOutput } from "./output-buffer.js";
import type { ProcessSupervisor } from "./process-supervisor.js";

/** How a foreground command ended. */
export interface CommandOutcome {
  readonly exitCode?: number;
  readonly signal?: string;
  readonly timedOut: boolean;
  /** stdout and stderr, interleaved as they arrived, up to the cap. */
  readonly output: string;
  /** Bytes of output past the cap. */
  readonly droppedBytes: number;
  readonly durationMs: number;
  /** Why the process could not be started (missing binary, bad cwd). */
  readonly spawnError?: string;
}

/** Options of {@link runForeground}. */
export interface RunForegroundOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Text written to stdin (then closed); without it stdin is /dev/null. */
  readonly input?: string;
  readonly timeoutMs: number;
  readonly outputMaxBytes: number;
  readonly clock: Clock;
  /** Start the process as this uid / gid (the sandbox's, when the worker is root). */
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * Runs `file args` in its own process group under the supervisor and waits for it. At the timeout
 * the whole group gets SIGTERM, then SIGKILL after the grace period, so a shell's children die
 * with it; whatever the leader leaves behind is killed when it exits.
 */
export async function runForeground(
  supervisor: ProcessSupervisor,
  runId: string,
  file: string,
  args: readonly string[],
  options: RunForegroundOptions,
): Promise<CommandOutcome> {
  const started = options.clock.now();
  const output = new CappedOutput(options.outputMaxBytes);
  const subprocess = supervisor.spawn(runId, file, args, {
    cwd: options.cwd,
    env: options.env,
    stdin: "ignore",
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
  subprocess.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
  subprocess.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
  let timedOut = false;
  const pid = subprocess.pid;
  const timer =
    pid === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          void supervisor.terminate(pid);
        }, options.timeoutMs);
  const result = await subprocess;
  clearTimeout(timer);
  const base = {
    timedOut,
    output: output.text(),
    droppedBytes: output.dropped,
    durationMs: options.clock.now() - started,
  };
  if (pid === undefined || (result.failed && result.exitCode === undefined && !result.signal)) {
    return { ...base, spawnError: (result.message ?? "the process could not start").split("\n")[0] ?? "" };
  }
  return {
    ...base,
    ...(typeof result.exitCode === "number" ? { exitCode: result.exitCode } : {}),
    ...(result.signal ? { signal: result.signal } : {}),
  };
}

/**
 * A command's outcome as a tool result: success only for exit code 0; a non-zero exit is a
 * `business` failure and a timeout a `timeout` failure, both carrying the output so far.
 */
export function commandResult(outcome: CommandOutcome, timeoutSeconds: number): ToolResult {
  let text = outcome.output;
  if (outcome.droppedBytes > 0) {
    text += `${text.endsWith("\n") || text === "" ? "" : "\n"}[${outcome.droppedBytes} more bytes of output dropped]`;
  }
  const data = {
    exitCode: outcome.exitCode ?? null,
    signal: outcome.signal ?? null,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
    droppedBytes: outcome.droppedBytes,
  };
  if (outcome.spawnError !== undefined) {
    return toolFailure("business", `the process could not start: ${outcome.spawnError}`, data);
  }
  if (outcome.timedOut) {
    return {
      ...toolFailure(
        "timeout",
        `the command did not finish within ${timeoutSeconds} s; its process group was killed`,
        data,
      ),
      output: text,
    };
  }
  if (outcome.exitCode === 0) return toolSuccess(text === "" ? "(no output)" : text, data);
  const how =
    outcome.exitCode !== undefined
      ? `exited with code ${outcome.exitCode}`
      : `was killed by ${outcome.signal}`;
  return { ...toolFailure("business", `the command ${how}`, data), output: text };
}
