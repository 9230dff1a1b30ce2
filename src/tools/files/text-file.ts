import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { type ToolFailure, toolFailure } from "../../catalog/index.js";
import { assertNever } from "../../shared/index.js";
import { readHeldFile } from "../beneath/held-read.js";

/** What {@link readTextFile} found. */
export type TextFileRead =
  | { readonly kind: "text"; readonly text: string; readonly size: number; readonly mode: number }
  | { readonly kind: "binary"; readonly size: number }
  | { readonly kind: "too_large"; readonly size: number }
  | { readonly kind: "not_file" }
  | { readonly kind: "missing" };

// Git's heuristic: a NUL byte in the first 8,000 bytes means binary.
const SNIFF_BYTES = 8000;

/** True when the bytes look binary: a NUL early on, or not valid UTF-8. */
export function looksBinary(bytes: Uint8Array): boolean {
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/**
 * Reads a UTF-8 text file of at most `maxBytes`. The path is opened with O_NOFOLLOW: callers pass
 * a held entry's path ({@link readTextAt}), so a final symlink appearing there is refused, not followed.
 */
export async function readTextFile(path: string, maxBytes: number): Promise<TextFileRead> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a FIFO planted in the workspace must not hang the worker; it is refused below.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "missing" };
    if (code === "ELOOP" || code === "EISDIR") return { kind: "not_file" };
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { kind: "not_file" };
    if (stat.size > maxBytes) return { kind: "too_large", size: stat.size };
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) return { kind: "too_large", size: bytes.length };
    if (looksBinary(bytes)) return { kind: "binary", size: bytes.length };
    return { kind: "text", text: bytes.toString("utf8"), size: bytes.length, mode: stat.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

/**
 * Reads the text file at the path fence's real path `realPath` through its held parent: the
 * folders on the way are the ones the fence checked (a component swapped for a symbolic link since
 * is refused with WORKSPACE_PATH_CHANGED), and the file itself is opened with O_NOFOLLOW.
 */
export async function readTextAt(realPath: string, maxBytes: number): Promise<TextFileRead> {
  const read = await readHeldFile(realPath, maxBytes);
  if (read.kind !== "file") return read;
  if (looksBinary(read.bytes)) return { kind: "binary", size: read.bytes.length };
  return { kind: "text", text: read.bytes.toString("utf8"), size: read.bytes.length, mode: read.mode };
}

/** The business failure for a read that found no text. */
export function textReadFailure(
  path: string,
  read: Exclude<TextFileRead, { kind: "text" }>,
  maxBytes: number,
): ToolFailure {
  switch (read.kind) {
    case "missing":
      return toolFailure("business", `${path} does not exist`);
    case "not_file":
      return toolFailure("business", `${path} is not a regular file (a directory, device or link)`);
    case "binary":
      return toolFailure(
        "business",
        `${path} is a binary file (${read.size} bytes, not UTF-8 text); only text files can be read or edited`,
      );
    case "too_large":
      return toolFailure(
        "business",
        `${path} is ${read.size} bytes, over the ${maxBytes}-byte limit of file tools; search it with search_files instead`,
      );
    default:
      return assertNever(read);
  }
}
