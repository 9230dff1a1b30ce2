import { createHash } from "node:crypto";
import { posix } from "node:path";
import { resolveInside } from "../inside-path.js";
import { readHeldFile } from "./held-read.js";

/** Files larger than this are not read: their digest is their size (64 MiB). */
export const RUN_FILE_MAX_BYTES = 64 * 1024 * 1024;

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/**
 * What a file of the workspace holds, for an approval to bind: `sha256:<hex>` of
 * its bytes, or a word for what it is instead (`missing`, `not a regular file`, `outside the
 * workspace (not read)`, `too large to read (<n> bytes)`), so a file created, swapped or replaced
 * after the approval changes the digest too. `path` is as the command names it, relative to
 * `workingDirectory` (absolute, or `~` which is never the workspace). The real path is resolved
 * (links followed) and must stay inside the workspace's; it is then read through its held parent
 * with O_NOFOLLOW, so a link swapped in after the check is not followed out of the workspace.
 */
export async function workspaceFileDigest(
  workspace: string,
  workingDirectory: string,
  path: string,
  maxBytes = RUN_FILE_MAX_BYTES,
): Promise<string> {
  if (path.startsWith("~")) return "outside the workspace (not read)";
  const root = posix.resolve(workspace);
  const lexical = posix.resolve(workingDirectory, path);
  if (!inside(root, lexical)) return "outside the workspace (not read)";
  const real = await resolveInside(root, lexical);
  if (!real.ok)
    return real.problem.endsWith("does not exist") ? "missing" : "outside the workspace (not read)";
  const read = await readHeldFile(real.path, maxBytes).catch(() => ({ kind: "changed" as const }));
  switch (read.kind) {
    case "file":
      return `sha256:${createHash("sha256").update(read.bytes).digest("hex")}`;
    case "missing":
      return "missing";
    case "not_file":
      return "not a regular file";
    case "too_large":
      return `too large to read (${read.size} bytes)`;
    case "changed":
      return "changed while it was read (not read)";
  }
}
