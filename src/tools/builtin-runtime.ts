import type { Cluster, Redis } from "ioredis";
import type { ExecHost } from "../catalog/index.js";
import { type Clock, RunnerError } from "../shared/index.js";
import type { PathFenceFactory } from "./path-fence-port.js";
import type { ProcessSupervisor } from "./process/process-supervisor.js";
import type { SandboxHost } from "./sandbox/index.js";

/** Reads pages of a spilled result (the agent's `redisSpillStore(...).read`). */
export interface SpillReader {
  /** `undefined` when there is no such spill (unknown id or expired). Offsets count bytes. */
  read(id: string, offset: number, length: number): Promise<{ text: string; total: number } | undefined>;
}

/** Caps of the built-in tools. Every field has a default ({@link DEFAULT_BUILTIN_LIMITS}). */
export interface BuiltinToolLimits {
  /** Largest file read_file, edit_file and patch load, bytes. Default 5 MiB. */
  readonly fileMaxBytes: number;
  /** Lines read_file returns when no limit is given. Default 2,000. */
  readonly readDefaultLines: number;
  /** A longer line is cut in read_file / search_files output, chars. Default 2,000. */
  readonly lineMaxChars: number;
  /** Largest content write_file writes, chars. Default 5 MiB. */
  readonly writeMaxChars: number;
  /** Entries list_dir returns at most. Default 1,000. */
  readonly listMaxEntries: number;
  /** Matches search_files returns at most. Default 200. */
  readonly searchMaxResults: number;
  /** Files search_files visits at most. Default 20,000. */
  readonly searchMaxFiles: number;
  /** Larger files are skipped by search_files, bytes. Default 2 MiB. */
  readonly searchMaxFileBytes: number;
  /** Output exec / execute_code keep, bytes (stdout and stderr together); the rest is dropped. Default 1 MiB. */
  readonly execOutputMaxBytes: number;
  /** Timeout of a command when the call gives none, seconds. Default 60. */
  readonly execDefaultTimeoutSeconds: number;
  /** Largest timeout a call may ask for, seconds. Default 600. */
  readonly execMaxTimeoutSeconds: number;
  /** After SIGTERM to a process group, SIGKILL follows after this, ms. Default 2,000. */
  readonly killGraceMs: number;
  /** Chars one `process read` returns at most (seed 002 LIVE_EXEC_OUTPUT_MAX_CHARS). Default 8,000. */
  readonly liveOutputMaxChars: number;
  /** Output kept per background process (older output is dropped), chars. Default 1 Mi. */
  readonly processOutputMaxChars: number;
  /** Background processes one run may have alive at once. Default 8. */
  readonly processMaxPerRun: number;
  /** Largest memory value, chars. Default 16,384. */
  readonly memoryValueMaxChars: number;
  /** Memories per scope at most. Default 1,000. */
  readonly memoryMaxEntries: number;
  /** Items of a run's to-do list at most. Default 100. */
  readonly todoMaxItems: number;
}

/** The default caps. */
export const DEFAULT_BUILTIN_LIMITS: BuiltinToolLimits = Object.freeze({
  fileMaxBytes: 5 * 1024 * 1024,
  readDefaultLines: 2000,
  lineMaxChars: 2000,
  writeMaxChars: 5 * 1024 * 1024,
  listMaxEntries: 1000,
  searchMaxResults: 200,
  searchMaxFiles: 20_000,
  searchMaxFileBytes: 2 * 1024 * 1024,
  execOutputMaxBytes: 1024 * 1024,
  execDefaultTimeoutSeconds: 60,
  execMaxTimeoutSeconds: 600,
  killGraceMs: 2000,
  liveOutputMaxChars: 8000,
  processOutputMaxChars: 1024 * 1024,
  processMaxPerRun: 8,
  memoryValueMaxChars: 16_384,
  memoryMaxEntries: 1000,
  todoMaxItems: 100,
});

/**
 * What the built-in tools need, built once per worker by the worker entrypoint (tools never read
 * config). See {@link createBuiltinTools}.
 */
export interface BuiltinToolRuntime {
  /**
   * The path fence of a run's workspace: guard's `createPathFence` bound to
   * `tools.restrict_to_workspace`, `tools.safe_write_root`, the home directory, the protected paths
   * (the runner's config and data directories) and a node:fs view.
   */
  readonly pathFence: PathFenceFactory;
  /** Redis for memory and todo (any ioredis client). */
  readonly redis: Redis | Cluster;
  /** `redis.key_prefix`. */
  readonly keyPrefix: string;
  /** How long run-scoped state (the to-do list) is kept after its last change, ms (the journal's retention). */
  readonly runStateRetentionMs: number;
  /** Spilled results, for read_spill. */
  readonly spill: SpillReader;
  /** Background and foreground processes of this worker (owns their process groups). */
  readonly processes: ProcessSupervisor;
  /** `tools.exec.host`: local, or sandbox (then `sandbox` must be given and ready); remote is never ready. */
  readonly execHost: ExecHost;
  /** The bubblewrap sandbox host, for `tools.exec.host: sandbox`. */
  readonly sandbox?: SandboxHost;
  /** The worker's environment; processes get only its allow-listed variables (see child-env). */
  readonly env: NodeJS.ProcessEnv;
  /** Extra variable names passed to processes; names that look like secrets are refused. */
  readonly envAllow?: readonly string[];
  /** Caps; missing fields take {@link DEFAULT_BUILTIN_LIMITS}. */
  readonly limits?: Partial<BuiltinToolLimits>;
  /** The git binary of the git tools (absolute path). Default /usr/bin/git; without it they are not ready. */
  readonly git?: string;
  /** Where execute_code writes its temp files (default: the OS temp directory). */
  readonly tempDir?: string;
  readonly clock: Clock;
}

/** The caps in force: the defaults overridden by the runtime's, each checked to be a number > 0. */
export function resolveBuiltinLimits(overrides: Partial<BuiltinToolLimits> = {}): BuiltinToolLimits {
  const limits = { ...DEFAULT_BUILTIN_LIMITS, ...overrides };
  for (const [key, value] of Object.entries(limits)) {
    if (!(typeof value === "number" && Number.isSafeInteger(value) && value > 0)) {
      throw new RunnerError(
        "TOOL_DEFINITION_INVALID",
        `built-in tool limit ${key} must be a whole number > 0, got ${String(value)}`,
        { data: { field: key } },
      );
    }
  }
  if (limits.execDefaultTimeoutSeconds > limits.execMaxTimeoutSeconds) {
    throw new RunnerError(
      "TOOL_DEFINITION_INVALID",
      `built-in tool limit execDefaultTimeoutSeconds (${limits.execDefaultTimeoutSeconds}) exceeds execMaxTimeoutSeconds (${limits.execMaxTimeoutSeconds})`,
      { data: { field: "execDefaultTimeoutSeconds" } },
    );
  }
  return Object.freeze(limits);
}
