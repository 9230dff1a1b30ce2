import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import type { HeldDir } from "./held-dir.js";
import { holdEntry, isMissing } from "./held-entry.js";

/** What {@link readHeldFile} found. */
export type HeldFileRead =
  | { readonly kind: "file"; readonly bytes: Buffer; readonly mode: number }
  | { readonly kind: "too_large"; readonly size: number }
  | { readonly kind: "not_file" }
  | { readonly kind: "missing" };

/** O_NOFOLLOW: a link at the end is refused; O_NONBLOCK: a FIFO planted there cannot hang the worker. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Opens the regular file `name` of a held folder for reading, or undefined when it is anything else now. */
export async function openHeldFile(dir: HeldDir, name: string): Promise<FileHandle | undefined> {
  const handle = await open(dir.entry(name), READ_FLAGS).catch(() => undefined);
  if (handle === undefined) return undefined;
  const info = await handle.stat().catch(() => undefined);
  if (info?.isFile()) return handle;
  await handle.close();
  return undefined;
}

/** Reads an open file of at most `maxBytes` (checked before and after reading: it may grow meanwhile). */
async function readBounded(handle: FileHandle, maxBytes: number): Promise<HeldFileRead> {
  const info = await handle.stat();
  if (!info.isFile()) return { kind: "not_file" };
  if (info.size > maxBytes) return { kind: "too_large", size: info.size };
  const bytes = await handle.readFile();
  if (bytes.length > maxBytes) return { kind: "too_large", size: bytes.length };
  return { kind: "file", bytes, mode: info.mode & 0o7777 };
}

/**
 * Reads the regular file at the real path `realPath` (as the path fence or `resolveInside`
 * resolved it) through its held parent, never following a link at any component: the bytes come
 * from the file that was checked, or nothing is read (WORKSPACE_PATH_CHANGED for a swapped folder).
 */
export async function readHeldFile(realPath: string, maxBytes: number): Promise<HeldFileRead> {
  let entry: ReturnType<typeof holdEntry>;
  try {
    entry = holdEntry(realPath);
  } catch (err) {
    if (isMissing(err)) return { kind: "missing" };
    throw err;
  }
  try {
    let handle: FileHandle;
    try {
      handle = await open(entry.at, READ_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return { kind: "missing" };
      if (code === "ELOOP" || code === "EISDIR" || code === "ENXIO") return { kind: "not_file" };
      throw err;
    }
    try {
      return await readBounded(handle, maxBytes);
    } finally {
      await handle.close();
    }
  } finally {
    entry.dir.close();
  }
}
