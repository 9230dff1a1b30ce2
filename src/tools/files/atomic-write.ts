import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { link, lstat, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * A sibling temp name for `path`: same directory (so rename is atomic on one file system), hidden,
 * random, and recognisable if a crash leaves it behind.
 */
export function siblingTempPath(path: string, tag = "tmp"): string {
  return join(dirname(path), `.${basename(path)}.echo-${tag}-${randomBytes(6).toString("hex")}`);
}

/**
 * Writes `content` to a new temp file beside `path` (O_EXCL, never following a link) with the given
 * mode, flushed to disk, and returns its name. The caller renames it into place.
 */
export async function writeTempFile(path: string, content: string, mode: number): Promise<string> {
  const temp = siblingTempPath(path);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    await handle.writeFile(content, "utf8");
    await handle.chmod(mode);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await handle.close();
  return temp;
}

/** What {@link atomicWriteFile} did. */
export type AtomicWriteOutcome = "created" | "replaced" | "unchanged";

/**
 * Replaces `path` with `content` atomically: a temp file beside it, then rename. Readers see the
 * old or the new file, never half of one, and a crash leaves the old file intact. When the file
 * already holds exactly `content` nothing is written (mtime and inode stay), so a repeated call
 * is a no-op. An existing file's mode is kept; a new file gets 0o644 (less the umask). `path` is a
 * held entry's path (`HeldEntry.at`), so the temp file and the rename stay in the directory held.
 */
export async function atomicWriteFile(path: string, content: string): Promise<AtomicWriteOutcome> {
  const existing = await statIfExists(path);
  if (existing?.isFile) {
    if ((await readNoFollow(path)) === content) return "unchanged";
  }
  const temp = await writeTempFile(path, content, existing?.isFile ? existing.mode & 0o7777 : 0o644);
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  return existing ? "replaced" : "created";
}

/** The text of the regular file at `path`, opened with O_NOFOLLOW (a link swapped in is refused), or undefined. */
async function readNoFollow(path: string): Promise<string | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => undefined,
  );
  if (handle === undefined) return undefined;
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * Keeps a hard link to `path` under a backup name (no copy, same directory), so a multi-file
 * change can put the original back if a later step fails.
 */
export async function linkBackup(path: string): Promise<string> {
  const backup = siblingTempPath(path, "bak");
  await link(path, backup);
  return backup;
}

/** lstat's kind and mode, or undefined when nothing is at `path`. */
export async function statIfExists(
  path: string,
): Promise<
  { isFile: boolean; isDirectory: boolean; isSymlink: boolean; mode: number; size: number } | undefined
> {
  try {
    const s = await lstat(path);
    return {
      isFile: s.isFile(),
      isDirectory: s.isDirectory(),
      isSymlink: s.isSymbolicLink(),
      mode: s.mode,
      size: s.size,
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}
