import { lstat, rename, rmdir, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { applyPatch, parsePatch, type StructuredPatch } from "diff";
import { type HeldEntry, holdEntry, isMissing, withHeldEntry } from "../beneath/held-entry.js";
import { linkBackup, writeTempFile } from "./atomic-write.js";
import { readTextAt, type TextFileRead } from "./text-file.js";

/** What a patch does to one file. */
export const PATCH_OPERATIONS = ["create", "modify", "delete", "rename"] as const;
export type PatchOperation = (typeof PATCH_OPERATIONS)[number];

/** One file of a parsed patch, with paths as the patch names them (a/ and b/ prefixes removed). */
export interface PatchFile {
  readonly operation: PatchOperation;
  /** The file read (modify, delete, rename); undefined for create. */
  readonly from: string | undefined;
  /** The file written (create, modify, rename); undefined for delete. */
  readonly to: string | undefined;
  readonly patch: StructuredPatch;
}

const DEV_NULL = "/dev/null";

function stripPrefix(name: string | undefined): string | undefined {
  if (name === undefined || name === DEV_NULL) return undefined;
  return /^[ab]\//.test(name) ? name.slice(2) : name;
}

/**
 * Parses a unified diff (one or more files, git or plain `diff -u`) with jsdiff. Throws an Error
 * saying what is wrong for text that is not a usable patch: no hunks, a file named twice, a hunk
 * without file names.
 */
export function parseUnifiedDiff(text: string): PatchFile[] {
  const parsed = parsePatch(text);
  const files: PatchFile[] = [];
  const seen = new Set<string>();
  for (const patch of parsed) {
    if (patch.hunks.length === 0) continue;
    const from = stripPrefix(patch.oldFileName);
    const to = stripPrefix(patch.newFileName);
    if (from === undefined && to === undefined) {
      throw new Error("a hunk has no file names (--- and +++ lines are required)");
    }
    const operation: PatchOperation =
      from === undefined ? "create" : to === undefined ? "delete" : from === to ? "modify" : "rename";
    const names = new Set([from, to].filter((n): n is string => n !== undefined));
    for (const name of names) {
      if (seen.has(name)) throw new Error(`${name} appears more than once in the patch`);
      seen.add(name);
    }
    files.push({ operation, from, to, patch });
  }
  if (files.length === 0) throw new Error("it contains no hunks (@@ ... @@) to apply");
  return files;
}

/** One file's change, computed and checked, ready to commit. Paths are real (fenced) paths. */
export interface PlannedChange {
  readonly operation: PatchOperation;
  readonly from: string | undefined;
  readonly to: string | undefined;
  /** New content of `to` (create, modify, rename). */
  readonly content: string | undefined;
  /** Mode of the new file: the old file's for modify/rename, 0o644 for create. */
  readonly mode: number;
}

/** Why a file of the patch cannot be applied (nothing is written when any file has one). */
export type PlanProblem = { readonly file: string; readonly problem: string };

/**
 * Computes every file's new content without writing anything: the whole patch must apply (exact
 * context, no fuzz) before the first file changes.
 */
export async function planPatch(
  files: readonly PatchFile[],
  real: (name: string) => string,
  maxBytes: number,
): Promise<{ changes: PlannedChange[]; problems: PlanProblem[] }> {
  const changes: PlannedChange[] = [];
  const problems: PlanProblem[] = [];
  for (const file of files) {
    const from = file.from === undefined ? undefined : real(file.from);
    const to = file.to === undefined ? undefined : real(file.to);
    let source = "";
    let mode = 0o644;
    if (from !== undefined) {
      const read: TextFileRead = await readTextAt(from, maxBytes);
      if (read.kind !== "text") {
        problems.push({
          file: file.from as string,
          problem: `cannot be patched (${read.kind.replace("_", " ")})`,
        });
        continue;
      }
      source = read.text;
      mode = read.mode;
    }
    if (to !== undefined && to !== from && (await existsAt(to))) {
      problems.push({ file: file.to as string, problem: "already exists" });
      continue;
    }
    const result = applyPatch(source, file.patch);
    if (result === false) {
      problems.push({
        file: file.from ?? (file.to as string),
        problem:
          "does not match the patch (context or removed lines differ); re-read the file and regenerate the diff",
      });
      continue;
    }
    if (file.operation === "delete" && result !== "") {
      problems.push({
        file: file.from as string,
        problem: "would not be empty after the patch, so it is not deleted",
      });
      continue;
    }
    changes.push({
      operation: file.operation,
      from,
      to,
      content: file.operation === "delete" ? undefined : result,
      mode,
    });
  }
  return { changes, problems };
}

/** True when something (a file, folder or link) is at the real path `path`, looked up through its held parent. */
async function existsAt(path: string): Promise<boolean> {
  try {
    return await withHeldEntry(
      path,
      {},
      async (entry) => (await lstat(entry.at).catch(() => undefined)) !== undefined,
    );
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

/** The file operations a commit uses; tests inject failures through it. */
export interface CommitFs {
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

const REAL_FS: CommitFs = { rename, unlink };

/**
 * Writes a planned patch all-or-nothing: every new content goes to a temp file first and every
 * file that will be replaced or removed gets a hard-link backup; then renames and unlinks run, and
 * if any of them fails the ones already done are undone from the backups. Temp files are removed in
 * every case, backups once they are not needed (kept, and named in the error, if an undo failed).
 *
 * Every file is acted on through its parent folder held by descriptor from the fenced real path
 * (missing folders created the same way), so a folder swapped for a symbolic link meanwhile is
 * refused (WORKSPACE_PATH_CHANGED) instead of leading the write outside.
 */
export async function commitPatch(changes: readonly PlannedChange[], fs: CommitFs = REAL_FS): Promise<void> {
  const held = new Map<string, HeldEntry>();
  const at = (path: string): string => (held.get(path) as HeldEntry).at;
  const temps = new Map<PlannedChange, string>();
  const backups = new Map<string, string>();
  const undo: (() => Promise<void>)[] = [];
  const madeDirs: string[] = [];
  let keepBackups = false;
  let failed = false;
  try {
    for (const change of changes) {
      if (change.to !== undefined && !held.has(change.to)) {
        const entry = holdEntry(change.to, { createParents: change.content !== undefined });
        held.set(change.to, entry);
        madeDirs.push(...entry.created);
      }
      if (change.from !== undefined && !held.has(change.from)) held.set(change.from, holdEntry(change.from));
    }
    for (const change of changes) {
      if (change.content !== undefined && change.to !== undefined) {
        temps.set(change, await writeTempFile(at(change.to), change.content, change.mode));
      }
      if (change.from !== undefined) backups.set(change.from, await linkBackup(at(change.from)));
    }
    for (const change of changes) {
      const temp = temps.get(change);
      if (temp !== undefined && change.to !== undefined) {
        const to = at(change.to);
        const replaced = change.operation === "modify" ? backups.get(change.to) : undefined;
        await fs.rename(temp, to);
        temps.delete(change);
        undo.push(replaced ? () => fs.rename(replaced, to) : () => fs.unlink(to));
      }
      if (change.from !== undefined && change.operation !== "modify") {
        const from = at(change.from);
        const backup = backups.get(change.from) as string;
        await fs.unlink(from);
        undo.push(() => fs.rename(backup, from));
      }
    }
  } catch (err) {
    failed = true;
    const undoErrors: string[] = [];
    for (const step of undo.reverse()) await step().catch((e: Error) => undoErrors.push(e.message));
    if (undoErrors.length > 0) {
      keepBackups = true;
      throw new Error(
        `${(err as Error).message}; undoing the applied part failed too (${undoErrors.join("; ")}); backups kept: ${[...backups].map(([real, backup]) => `${dirname(real)}/${basename(backup)}`).join(", ")}`,
      );
    }
    throw err;
  } finally {
    for (const temp of temps.values()) await unlink(temp).catch(() => undefined);
    // After a successful undo a backup has been renamed back into place, so ENOENT here is expected.
    if (!keepBackups) for (const backup of backups.values()) await unlink(backup).catch(() => undefined);
    for (const entry of held.values()) entry.dir.close();
    if (failed) await removeEmptyDirs(madeDirs);
  }
}

/** Removes the folders a failed commit created, deepest first, as long as each is empty, through held parents. */
async function removeEmptyDirs(made: readonly string[]): Promise<void> {
  const deepestFirst = [...new Set(made)].sort((a, b) => b.length - a.length);
  for (const dir of deepestFirst) {
    await withHeldEntry(dir, {}, (entry) => rmdir(entry.at)).catch(() => undefined);
  }
}
