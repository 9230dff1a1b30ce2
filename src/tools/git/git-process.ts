import type { WorkspaceView } from "../beneath/workspace-view.js";
import { CappedOutput } from "../process/output-buffer.js";
import type { ProcessSupervisor } from "../process/process-supervisor.js";
import { enterLayer } from "../sandbox/layer-launch.js";

/** How one git process ended; stdout and stderr kept apart (stdout is parsed). */
export interface GitOutcome {
  readonly exitCode?: number;
  readonly signal?: string;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** Bytes of stdout past the cap. */
  readonly droppedBytes: number;
  /** Why git could not be started. */
  readonly spawnError?: string;
}

/** Options of {@link runGitProcess}. */
export interface GitProcessOptions {
  readonly supervisor: ProcessSupervisor;
  /** The run the process belongs to (`ctx.executionId`): it is killed when the run ends. */
  readonly runId: string;
  /** Absolute path of the git binary. */
  readonly git: string;
  /** Absolute path of nsenter, for a run in a workspace layer. */
  readonly nsenter: string;
  /** The run's workspace view (its copy-on-write layer), or undefined for the host's filesystem. */
  readonly view: WorkspaceView | undefined;
  readonly argv: readonly string[];
  readonly env: Record<string, string>;
  readonly timeoutMs: number;
  readonly stdoutMaxBytes: number;
}

/** stderr kept for the error message, bytes. */
const STDERR_MAX_BYTES = 8192;

/**
 * Runs git once, in its own process group under the supervisor, never through a shell. With a
 * workspace layer active, git starts through `nsenter --mount=<the run's namespace>` (as the
 * sandbox host's launches do), so it reads the layer the run's other tools see, not the real
 * workspace; `-C` in the argv then names the repository inside that namespace. At the timeout the
 * group gets SIGTERM, then SIGKILL after the supervisor's grace.
 */
export async function runGitProcess(options: GitProcessOptions): Promise<GitOutcome> {
  const launch =
    options.view === undefined
      ? { file: options.git, args: [...options.argv] }
      : enterLayer({ file: options.git, args: options.argv }, options.view, {
          nsenter: options.nsenter,
          setpriv: "/usr/bin/setpriv",
        });
  const stdout = new CappedOutput(options.stdoutMaxBytes);
  const stderr = new CappedOutput(STDERR_MAX_BYTES);
  const subprocess = options.supervisor.spawn(options.runId, launch.file, launch.args, {
    cwd: "/",
    env: options.env,
    stdin: "ignore",
  });
  subprocess.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
  subprocess.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  let timedOut = false;
  const pid = subprocess.pid;
  const timer =
    pid === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          void options.supervisor.terminate(pid);
        }, options.timeoutMs);
  const result = await subprocess;
  clearTimeout(timer);
  const base = { timedOut, stdout: stdout.text(), stderr: stderr.text(), droppedBytes: stdout.dropped };
  if (pid === undefined || (result.failed && result.exitCode === undefined && !result.signal)) {
    return { ...base, spawnError: (result.message ?? "git could not start").split("\n")[0] ?? "" };
  }
  return {
    ...base,
    ...(typeof result.exitCode === "number" ? { exitCode: result.exitCode } : {}),
    ...(result.signal ? { signal: result.signal } : {}),
  };
}
