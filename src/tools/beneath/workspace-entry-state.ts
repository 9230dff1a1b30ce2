import { lstat, opendir, realpath } from "node:fs/promises";
import { posix } from "node:path";
import { isRunnerError } from "../../shared/index.js";
import { holdEntry } from "./held-entry.js";

/** A folder's entries are counted up to this many; more reads as "more than" it. */
export const ENTRY_COUNT_CAP = 1000;

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * What exists now at a path a command names, for an approver: `file, <n> bytes`, `folder, <n>
 * entries`, `missing`, `a symbolic link (not followed)`, or why it was not read. `path` is relative
 * to `workingDirectory`. Read on the host beneath the workspace by descriptor: every component is
 * walked with O_NOFOLLOW from the workspace's real path, so a link is reported, never followed
 * out of it; a folder's entries are counted up to `entryCap`.
 */
export async function workspaceEntryState(
  workspace: string,
  workingDirectory: string,
  path: string,
  entryCap = ENTRY_COUNT_CAP,
): Promise<string> {
  if (path.startsWith("~")) return "outside the workspace (not read)";
  const root = posix.resolve(workspace);
  const lexical = posix.resolve(workingDirectory, path);
  if (!inside(root, lexical)) return "outside the workspace (not read)";
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return "not read (the workspace is missing)";
  }
  const relative = posix.relative(root, lexical);
  if (relative === "") return "the workspace itself";
  let entry: ReturnType<typeof holdEntry>;
  try {
    entry = holdEntry(posix.join(realRoot, relative));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    if (isRunnerError(err, "WORKSPACE_PATH_CHANGED"))
      return "behind a symbolic link or a file (not followed)";
    return "not read";
  }
  try {
    const found = await lstat(entry.at).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return "missing" as const;
      throw err;
    });
    if (found === "missing") return "missing";
    if (found.isSymbolicLink()) return "a symbolic link (not followed)";
    if (found.isFile()) return `file, ${plural(found.size, "byte")}`;
    if (!found.isDirectory()) return "not a file or a folder (not read)";
    const folder = entry.dir.child(entry.name);
    try {
      const listing = await opendir(folder.self);
      let count = 0;
      try {
        for await (const _ of listing) {
          count += 1;
          if (count > entryCap) return `folder, more than ${entryCap} entries`;
        }
      } finally {
        await listing.close().catch(() => undefined);
      }
      return `folder, ${count} ${count === 1 ? "entry" : "entries"}`;
    } finally {
      folder.close();
    }
  } catch {
    return "not read";
  } finally {
    entry.dir.close();
  }
}
