/**
 * How to start one program of a tool on its exec host: where and as whom, and what to clean up
 * after it. The local host makes one that runs the command as is; the sandbox host one per call
 * (bwrap, its own proxy).
 */
export interface CommandLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /** Set when the worker is root and the sandbox runs the program as another identity. */
  readonly uid?: number;
  readonly gid?: number;
  /**
   * Where the launcher itself starts, when not in the call's working directory: a sandbox in a
   * run's layer starts at `/` (the directory may exist only in the layer; bwrap changes to it).
   */
  readonly cwd?: string;
  /** After the program exited: the sandbox-wide limit it reached (memory, processes), named with its setting. */
  limitReached?(): string | undefined;
  /**
   * Stops what the launch started (the sandbox's proxy) and removes its directory; call when the
   * program has exited. Safe to call twice.
   */
  dispose(): Promise<void>;
}

/** Where a launch's program runs as: the sandbox's uid / gid when set (spawn options). */
export function launchIdentity(launch: CommandLaunch): { uid?: number; gid?: number } {
  return {
    ...(launch.uid === undefined ? {} : { uid: launch.uid }),
    ...(launch.gid === undefined ? {} : { gid: launch.gid }),
  };
}
