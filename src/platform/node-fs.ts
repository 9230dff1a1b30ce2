import { accessSync, constants, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import type { FsEntryKind, FsView } from "../guard/index.js";

/**
 * The node:fs-backed file-system view and PATH lookup that the guard's pure checks take as ports.
 * This folder holds the real implementations of such ports (file system, PATH, DNS).
 */
export function nodeFsView(): FsView {
  return {
    lstat(path): FsEntryKind | undefined {
      try {
        const stat = lstatSync(path);
        if (stat.isSymbolicLink()) return "symlink";
        if (stat.isDirectory()) return "directory";
        if (stat.isFile()) return "file";
        return "other";
      } catch {
        return undefined;
      }
    },
    readlink: (path) => readlinkSync(path),
  };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The PATH lookup for safe bins: the real path (symlinks resolved) of the program `command` runs,
 * or undefined when there is none. A command with a slash is taken relative to `cwd`.
 */
export function pathLookup(env: NodeJS.ProcessEnv, cwd: string): (command: string) => string | undefined {
  return (command) => {
    const candidates = command.includes("/")
      ? [isAbsolute(command) ? command : resolve(cwd, command)]
      : (env.PATH ?? "")
          .split(delimiter)
          .filter((d) => d !== "")
          .map((d) => join(d, command));
    for (const candidate of candidates) {
      if (!executable(candidate)) continue;
      try {
        return realpathSync(candidate);
      } catch {}
    }
    return undefined;
  };
}
