import type { EchoRunnerConfig } from "../config/index.js";
import type { Logger } from "../logging/index.js";
import type { ConfigScheduleEntry } from "../scheduler/index.js";
import type { DeepReadonly } from "../shared/index.js";

/**
 * The port between the `echo-runner start | worker | scheduler | serve` commands (src/cli) and the
 * process that runs the parts (workers/all-in-one.ts). Both sides know only this contract; the
 * binary's entry (src/main.ts) hands the one to the other, so cli and workers never import each other.
 */

/** The parts one process can run. */
export const PROCESS_PARTS = ["worker", "scheduler", "http"] as const;
export type ProcessPart = (typeof PROCESS_PARTS)[number];

/** Options for {@link StartProcess}. */
export interface ProcessOptions {
  config: DeepReadonly<EchoRunnerConfig>;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** REDIS_URL from the environment; when unset a local redis-server is started under dataDir. */
  redisUrl: string | undefined;
  dataDir: string;
  /**
   * A workspace inside the data dir (the demo's): the data dir stays read-only for agents' file
   * tools except this one directory.
   */
  workspaceInDataDir?: string;
  baseDir: string;
  configPaths: readonly string[];
  parts: readonly ProcessPart[];
  configSchedules: readonly ConfigScheduleEntry[];
  /** How long stop() may take in all before it gives up on what is left (default 10 s). */
  shutdownGraceMs?: number;
}

/** What a bounded shutdown could not finish, for the operator. */
export interface StopReport {
  /** True when every step finished within its time. */
  clean: boolean;
  /** One line per step that timed out or failed, saying what was left undone and what that means. */
  notFlushed: string[];
}

/**
 * A running process; stop() shuts the parts down in order and stops the local Redis last. It is
 * bounded: a step that cannot finish (Redis gone) is given up on and named in the report.
 */
export interface RunningProcess {
  httpAddress: string | undefined;
  redisUrl: string;
  stop(): Promise<StopReport>;
}

/** Starts Redis (if needed) and the chosen parts in this process. */
export type StartProcess = (options: ProcessOptions) => Promise<RunningProcess>;
