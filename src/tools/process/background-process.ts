import type { ResultPromise } from "execa";
import { type Clock, RunnerError } from "../../shared/index.js";
import { bashReadiness, bashScriptArgs, locateBash } from "./bash-shell.js";
import { type CommandLaunch, launchIdentity } from "./command-launch.js";
import { OutputLog, type OutputPage } from "./output-buffer.js";
import { signalGroup } from "./process-group.js";

/** What starts and stops process groups (the {@link ProcessSupervisor}). */
export interface ProcessSpawner {
  spawn(runId: string, file: string, args: readonly string[], options: ProcessSpawnOptions): ResultPromise;
  terminate(pid: number, signal?: NodeJS.Signals): Promise<void>;
}

/** How one process group is started: where, with what environment and stdin, as whom. */
export interface ProcessSpawnOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly stdin: "ignore" | "pipe";
  /** Text written to stdin (then closed), in place of `stdin`. */
  readonly input?: string;
  /** Start the process as this uid / gid (the sandbox's, when the worker is root). */
  readonly uid?: number;
  readonly gid?: number;
}

/** Options of one background process. */
export interface BackgroundProcessOptions {
  /** Id within the worker (`p1`, `p2`, ...), what the model refers to. */
  readonly id: string;
  /** The shell command, run with `bash --noprofile --norc -c`. */
  readonly command: string;
  /** Absolute path of bash (default: bash-shell's locateBash). */
  readonly bash?: string;
  /** Real path of its working directory (inside the workspace). */
  readonly cwd: string;
  readonly env: Record<string, string>;
  /**
   * How the exec host runs the command (a sandbox of its own: program, arguments, environment,
   * identity); when given it replaces `bash -c command`, and `dispose` runs once the process ended.
   */
  readonly launch?: CommandLaunch;
  /** Output kept (the latest chars), chars. */
  readonly outputMaxChars: number;
  readonly startedAt: number;
}

/** A background process's state, as `process status` reports it. */
export interface BackgroundProcessStatus {
  readonly id: string;
  readonly pid: number | undefined;
  readonly command: string;
  readonly state: "running" | "exited";
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly exitCode?: number;
  readonly signal?: string;
  /** Chars of output so far (the offset a reader reaches at the end). */
  readonly outputChars: number;
  /** Why it could not start, if it did not. */
  readonly error?: string;
}

/**
 * One process a run started with `process start`: its own process group, its output (stdout and
 * stderr interleaved) in a bounded log, its stdin open for `process write`.
 */
export class BackgroundProcess {
  readonly id: string;
  readonly runId: string;
  readonly command: string;
  readonly startedAt: number;
  readonly #subprocess: ResultPromise;
  readonly #log: OutputLog;
  readonly #spawner: ProcessSpawner;
  readonly #done: Promise<void>;
  #endedAt: number | undefined;
  #exitCode: number | undefined;
  #signal: string | undefined;
  #error: string | undefined;

  constructor(spawner: ProcessSpawner, runId: string, options: BackgroundProcessOptions, clock: Clock) {
    this.id = options.id;
    this.runId = runId;
    this.command = options.command;
    this.startedAt = options.startedAt;
    this.#spawner = spawner;
    this.#log = new OutputLog(options.outputMaxChars);
    const bash = options.bash ?? locateBash()?.path;
    // Never a fallback to /bin/sh: the guard judged the command as bash reads it.
    if (bash === undefined) throw new RunnerError("TOOL_NOT_READY", bashReadiness().detail);
    const launch = options.launch;
    this.#subprocess = launch
      ? spawner.spawn(runId, launch.file, launch.args, {
          cwd: launch.cwd ?? options.cwd,
          env: launch.env,
          stdin: "pipe",
          ...launchIdentity(launch),
        })
      : spawner.spawn(runId, bash, bashScriptArgs(options.command), {
          cwd: options.cwd,
          env: options.env,
          stdin: "pipe",
        });
    this.#subprocess.stdout?.on("data", (chunk: Buffer) => this.#log.append(chunk));
    this.#subprocess.stderr?.on("data", (chunk: Buffer) => this.#log.append(chunk));
    this.#subprocess.stdin?.on("error", () => undefined);
    this.#done = this.#subprocess.then(async (result) => {
      await launch?.dispose().catch(() => undefined);
      this.#log.end();
      this.#endedAt = clock.now();
      if (typeof result.exitCode === "number") this.#exitCode = result.exitCode;
      if (result.signal) this.#signal = result.signal;
      if (result.failed && result.exitCode === undefined && !result.signal) {
        this.#error = (result.message ?? "the process could not start").split("\n")[0];
      }
    });
  }

  /** Resolves when the process has exited and its output is complete. */
  get done(): Promise<void> {
    return this.#done;
  }

  get pid(): number | undefined {
    return this.#subprocess.pid;
  }

  get running(): boolean {
    return this.#endedAt === undefined;
  }

  status(): BackgroundProcessStatus {
    return {
      id: this.id,
      pid: this.pid,
      command: this.command,
      state: this.running ? "running" : "exited",
      startedAt: this.startedAt,
      ...(this.#endedAt === undefined ? {} : { endedAt: this.#endedAt }),
      ...(this.#exitCode === undefined ? {} : { exitCode: this.#exitCode }),
      ...(this.#signal === undefined ? {} : { signal: this.#signal }),
      ...(this.#error === undefined ? {} : { error: this.#error }),
      outputChars: this.#log.total,
    };
  }

  /** Up to `maxChars` chars of output from `offset`. */
  read(offset: number, maxChars: number): OutputPage {
    return this.#log.read(offset, maxChars);
  }

  /** Writes to the process's stdin; false when it is closed or the process ended. */
  async write(text: string, close: boolean): Promise<boolean> {
    const stdin = this.#subprocess.stdin;
    if (!this.running || !stdin || stdin.destroyed || stdin.writableEnded) return false;
    await new Promise<void>((resolve, reject) => {
      stdin.write(text, (err) => (err ? reject(err) : resolve()));
    });
    if (close) stdin.end();
    return true;
  }

  /** Sends a signal to the process's whole group; false when it already ended. */
  signal(signal: NodeJS.Signals): boolean {
    const pid = this.pid;
    if (!this.running || pid === undefined) return false;
    return signalGroup(pid, signal);
  }

  /** SIGTERM, then SIGKILL after the grace period. */
  async stop(): Promise<void> {
    const pid = this.pid;
    if (this.running && pid !== undefined) await this.#spawner.terminate(pid);
    await this.#done;
  }
}
