import { RunnerError } from "../../shared/index.js";

/**
 * The sandbox's resource limits and identity (`tools.exec.sandbox.*`). Every limit binds each
 * sandboxed call on its own; see {@link DEFAULT_SANDBOX_LIMITS} for the defaults.
 */
export interface SandboxLimits {
  /** Uid (and gid) commands run as when the worker runs as root (process limits do not bind root). Default 65534. */
  readonly uid: number;
  /** CPU time of each process, seconds (RLIMIT_CPU). Default 300. */
  readonly cpuSeconds: number;
  /** Address space of each process, MiB (RLIMIT_AS). Default 8192 (node and V8 reserve a lot of it). */
  readonly memoryMb: number;
  /** Processes (and threads) in the sandbox at once (RLIMIT_NPROC in its own user namespace). Default 256. */
  readonly maxProcesses: number;
  /** Largest file a process may write, MiB (RLIMIT_FSIZE). Default 1024. */
  readonly fileSizeMb: number;
  /** Open files per process (RLIMIT_NOFILE). Default 1024. */
  readonly openFiles: number;
  /** Size of the private /tmp (a tmpfs), MiB. Default 512. */
  readonly tmpMb: number;
}

/** The default limits: generous enough for `npm test`, small enough that a runaway ends. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = Object.freeze({
  uid: 65534,
  cpuSeconds: 300,
  memoryMb: 8192,
  maxProcesses: 256,
  fileSizeMb: 1024,
  openFiles: 1024,
  tmpMb: 512,
});

/** The limits in force: defaults overridden, each a whole number > 0 (uid ≥ 1: never root). */
export function resolveSandboxLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...overrides };
  for (const [key, value] of Object.entries(limits)) {
    if (!(typeof value === "number" && Number.isSafeInteger(value) && value > 0)) {
      throw new RunnerError(
        "CONFIG_INVALID",
        `sandbox limit ${key} must be a whole number > 0, got ${String(value)}`,
        { data: { field: key } },
      );
    }
  }
  return Object.freeze(limits);
}
