import { lstat } from "node:fs/promises";
import { posix } from "node:path";
import { type ToolFailure, type ToolResult, toolFailure } from "../../catalog/index.js";
import { isRunnerError } from "../../shared/index.js";
import { HeldDir, isEntryName } from "./held-dir.js";

/** One entry of a held directory: what a file tool acts on after the path fence allowed its real path. */
export interface HeldEntry {
  /** The entry's parent, held by descriptor. */
  readonly dir: HeldDir;
  /** The entry's name in `dir`. */
  readonly name: string;
  /** A path naming the entry through `dir`'s descriptor: use it with calls that do not follow a final symlink. */
  readonly at: string;
  /** The real path that was checked (for messages). */
  readonly path: string;
  /** Folders created on the way (with `createParents`), deepest last. */
  readonly created: readonly string[];
}

/**
 * Holds the parent of `realPath` (the path fence's resolved path: absolute, no symlinks in it) by
 * descriptor and names the last component through it. With `createParents`, missing folders are
 * created on the way, never through a symbolic link.
 */
export function holdEntry(realPath: string, options: { createParents?: boolean } = {}): HeldEntry {
  const name = posix.basename(realPath);
  if (!isEntryName(name)) throw new TypeError(`not a path to an entry: ${realPath}`);
  const parent = posix.dirname(realPath);
  const { dir, created } = options.createParents
    ? HeldDir.openCreating(parent)
    : { dir: HeldDir.open(parent), created: [] };
  return { dir, name, at: dir.entry(name), path: realPath, created };
}

/** Runs `use` on the held entry of `realPath` and closes its descriptor afterwards. */
export async function withHeldEntry<T>(
  realPath: string,
  options: { createParents?: boolean },
  use: (entry: HeldEntry) => Promise<T>,
): Promise<T> {
  const entry = holdEntry(realPath, options);
  try {
    return await use(entry);
  } finally {
    entry.dir.close();
  }
}

/** Runs `use` on the held directory `realPath` and closes it afterwards. */
export async function withHeldDir<T>(realPath: string, use: (dir: HeldDir) => Promise<T>): Promise<T> {
  const dir = HeldDir.open(realPath);
  try {
    return await use(dir);
  } finally {
    dir.close();
  }
}

/**
 * The tool result for a path that changed under a file tool (a component became a symbolic link
 * or stopped being a folder), or undefined when `err` is another error (the caller rethrows it).
 */
export function changedPathFailure(err: unknown, shownPath: string): ToolFailure | undefined {
  if (!isRunnerError(err, "WORKSPACE_PATH_CHANGED")) return undefined;
  return toolFailure("denied", `${JSON.stringify(shownPath)}: ${err.message}`, {
    rule: "path.changed",
    path: shownPath,
  });
}

/** True when `err` is a missing folder on the way to a held path (ENOENT while walking). */
export function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/**
 * Runs a file tool's work, answering a path that changed under it (WORKSPACE_PATH_CHANGED) with a
 * `denied` result naming the path the agent gave; other errors propagate.
 */
export async function onHeldPaths(shownPath: string, work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (err) {
    const failure = changedPathFailure(err, shownPath);
    if (failure) return failure;
    throw err;
  }
}

/** Holds the folder at the real path `realPath`, or says what is there instead. */
export async function holdFolder(realPath: string): Promise<HeldDir | "missing" | "not_folder"> {
  if (realPath === "/") return HeldDir.open("/");
  let entry: HeldEntry;
  try {
    entry = holdEntry(realPath);
  } catch (err) {
    if (isMissing(err)) return "missing";
    throw err;
  }
  try {
    const found = await lstat(entry.at).catch(() => undefined);
    if (found === undefined) return "missing";
    if (!found.isDirectory()) return "not_folder";
    return entry.dir.child(entry.name);
  } finally {
    entry.dir.close();
  }
}
