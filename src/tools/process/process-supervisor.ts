import { execa, type ResultPromise } from "execa";
import type { Logger } from "../../logging/index.js";
import type { Clock } from "../../shared/index.js";
import {
  BackgroundProcess,
  type BackgroundProcessOptions,
  type ProcessSpawner,
  type ProcessSpawnOptions,
} from "./background-process.js";
import { signalGroup } from "./process-group.js";
import type { ProcessRecords, ReapReport } from "./process-records.js";

/**
 * The reaper: a tiny shell that outlives the worker. The worker writes `+<pgid>` when it starts a
 * process group and `-<pgid>` when the group is gone; when the worker dies in any way (SIGKILL
 * included) the pipe closes, `read` sees end of file and the reaper kills every group still
 * listed. It ignores the terminal's signals so a Ctrl-C to the worker's group cannot take it first.
 */
const REAPER_SCRIPT = `trap '' INT TERM HUP QUIT
pids=' '
while IFS= read -r line; do
  case "$line" in
    +*) pids="$pids\${line#+} " ;;
    -*) gone=\${line#-}; keep=' '; for p in $pids; do [ "$p" = "$gone" ] || keep="$keep$p "; done; pids=$keep ;;
  esac
done
for p in $pids; do kill -s KILL -- "-$p" 2>/dev/null; done
`;

/** Options for {@link ProcessSupervisor}. */
export interface ProcessSupervisorOptions {
  clock: Clock;
  logger: Logger;
  /** SIGKILL follows SIGTERM after this, ms. Default 2,000. */
  killGraceMs?: number;
  /** Start the reaper that kills this worker's process groups when it dies. Default true. */
  reaper?: boolean;
  /** Kill every process group synchronously when this process exits. Default true. */
  exitHook?: boolean;
  /**
   * Where the groups are recorded on disk while they run, so the next worker on the data dir can
   * end those a dead worker left (see {@link ProcessSupervisor.reapOrphans}). None when omitted.
   */
  records?: ProcessRecords;
}

interface Tracked {
  readonly runId: string;
  readonly subprocess: ResultPromise;
  readonly exited: Promise<void>;
}

/**
 * Owns every process group the tools of this worker start (exec, execute_code, process). Each
 * process is its own group leader (detached), so a timeout or a stop reaches its children too.
 * Groups are stopped when their run ends ({@link stopAllForRun}), when the worker exits (exit
 * hook) and when the worker dies without running any code (the reaper).
 */
export class ProcessSupervisor implements ProcessSpawner {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #grace: number;
  readonly #tracked = new Map<number, Tracked>();
  readonly #background = new Map<string, BackgroundProcess>();
  #reaper: ResultPromise | undefined;
  readonly #records: ProcessRecords | undefined;
  #removeExitHook: (() => void) | undefined;
  #nextId = 1;

  constructor(options: ProcessSupervisorOptions) {
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#grace = options.killGraceMs ?? 2000;
    this.#records = options.records;
    if (options.reaper ?? true) this.#startReaper();
    if (options.exitHook ?? true) {
      const hook = () => this.killAllSync();
      process.on("exit", hook);
      this.#removeExitHook = () => process.off("exit", hook);
    }
  }

  /** Pid of the reaper shell, if it runs. */
  get reaperPid(): number | undefined {
    return this.#reaper?.pid;
  }

  #startReaper(): void {
    const reaper = execa("/bin/sh", ["-c", REAPER_SCRIPT], {
      detached: true,
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      reject: false,
      extendEnv: false,
      env: { PATH: "/usr/bin:/bin" },
    });
    reaper.catch(() => undefined);
    // Neither the reaper nor its pipe may keep the worker's event loop alive.
    reaper.unref();
    reaper.stdin?.on("error", () => undefined);
    (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.#reaper = reaper;
  }

  #tellReaper(line: string): void {
    const stdin = this.#reaper?.stdin;
    if (stdin && !stdin.destroyed) stdin.write(`${line}\n`);
  }

  /**
   * Starts `file args` as the leader of a new process group owned by `runId` and tracks it until
   * it exits; when the leader exits, what is left of its group is killed.
   */
  spawn(runId: string, file: string, args: readonly string[], options: ProcessSpawnOptions): ResultPromise {
    const subprocess = execa(file, args, {
      cwd: options.cwd,
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
      env: options.env,
      extendEnv: false,
      detached: true,
      buffer: false,
      reject: false,
      stdout: "pipe",
      stderr: "pipe",
      ...(options.input === undefined ? { stdin: options.stdin } : { input: options.input }),
    });
    const pid = subprocess.pid;
    if (pid === undefined) return subprocess;
    this.#tellReaper(`+${pid}`);
    this.#records?.add(runId, pid);
    const exited = new Promise<void>((resolve) => {
      subprocess.once("exit", () => {
        // Stragglers (`cmd &`) would hold the output pipes open; the group lives as long as its leader.
        signalGroup(pid, "SIGKILL");
        this.#tracked.delete(pid);
        this.#tellReaper(`-${pid}`);
        this.#records?.remove(pid);
        resolve();
      });
    });
    this.#tracked.set(pid, { runId, subprocess, exited });
    return subprocess;
  }

  /** SIGTERM to the group, then SIGKILL after the grace period unless the leader exited first. */
  async terminate(pid: number, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const tracked = this.#tracked.get(pid);
    if (!tracked) return;
    signalGroup(pid, signal);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<"grace">((resolve) => {
      timer = setTimeout(() => resolve("grace"), this.#grace);
    });
    const outcome = await Promise.race([tracked.exited.then(() => "exited" as const), grace]);
    clearTimeout(timer);
    if (outcome === "grace") {
      signalGroup(pid, "SIGKILL");
      await tracked.exited;
    }
  }

  /** Starts a background process of `runId` (see the `process` tool). */
  startBackground(
    runId: string,
    options: Omit<BackgroundProcessOptions, "id" | "startedAt">,
  ): BackgroundProcess {
    const id = `p${this.#nextId++}`;
    const started = new BackgroundProcess(
      this,
      runId,
      { ...options, id, startedAt: this.#clock.now() },
      this.#clock,
    );
    this.#background.set(`${runId}\u0000${id}`, started);
    return started;
  }

  /** A background process of `runId` by id; another run's processes are invisible. */
  background(runId: string, id: string): BackgroundProcess | undefined {
    return this.#background.get(`${runId}\u0000${id}`);
  }

  /** The command a background process of `runId` was started with (what reads its input). */
  backgroundCommand(runId: string, id: string): string | undefined {
    return this.background(runId, id)?.command;
  }

  /** The background processes of `runId`, oldest first. */
  listBackground(runId: string): BackgroundProcess[] {
    return [...this.#background.values()].filter((p) => p.runId === runId);
  }

  /** Number of process groups of `runId` still alive. */
  liveCount(runId: string): number {
    return [...this.#tracked.values()].filter((t) => t.runId === runId).length;
  }

  /**
   * Stops every process group of a run (foreground and background) and forgets its background
   * processes. The worker calls it when a run ends, parks or fails. Returns how many were alive.
   */
  async stopAllForRun(runId: string): Promise<number> {
    const pids = [...this.#tracked.entries()].filter(([, t]) => t.runId === runId).map(([pid]) => pid);
    await Promise.all(pids.map((pid) => this.terminate(pid)));
    for (const [key, proc] of this.#background) if (proc.runId === runId) this.#background.delete(key);
    if (pids.length > 0) this.#logger.info({ runId, stopped: pids.length }, "stopped the run's processes");
    return pids.length;
  }

  /**
   * Ends the process groups that earlier workers on this data dir recorded and left behind (the
   * worker and its reaper both died). A worker calls it once at start, before it takes any run.
   */
  reapOrphans(): ReapReport {
    const report = this.#records?.reapOrphans() ?? { reaped: 0, runs: [] };
    if (report.reaped > 0) {
      this.#logger.warn(
        { reaped: report.reaped, runs: report.runs },
        "ended process groups a dead worker left behind",
      );
    }
    return report;
  }

  /** Kills every tracked group at once (the exit hook: no time to wait for a grace period). */
  killAllSync(): void {
    for (const pid of this.#tracked.keys()) signalGroup(pid, "SIGKILL");
  }

  /** Stops every process, removes the exit hook and lets the reaper end. */
  async close(): Promise<void> {
    const runs = new Set([...this.#tracked.values()].map((t) => t.runId));
    await Promise.all([...runs].map((run) => this.stopAllForRun(run)));
    this.#removeExitHook?.();
    this.#reaper?.stdin?.end();
    this.#reaper = undefined;
  }
}
