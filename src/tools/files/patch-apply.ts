import { mkdir, rename, rmdir, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { applyPatch, parsePatch, type StructuredPatch } from "diff";
import { linkBackup, statIfExists, writeTempFile } from "./atomic-write.js";
import { readTextFile, type TextFileRead } from "./text-file.js";

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
      const read: TextFileRead = await readTextFile(from, maxBytes);
      if (read.kind !== "text") {
        problems.push({
          file: file.from as string,
          problem: `cannot be patched (${read.kind.replace("_", " ")})`,
        });
        continue;
      }
      source = read.text;
      mode = ((await statIfExists(from))?.mode ?? 0o644) & 0o7777;
    }
    if (to !== undefined && to !== from && (await statIfExists(to)) !== undefined) {
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
 */
export async function commitPatch(changes: readonly PlannedChange[], fs: CommitFs = REAL_FS): Promise<void> {
  const temps = new Map<PlannedChange, string>();
  const backups = new Map<string, string>();
  const undo: (() => Promise<void>)[] = [];
  const madeDirs: { first: string; deepest: string }[] = [];
  let keepBackups = false;
  let failed = false;
  try {
    for (const change of changes) {
      if (change.content !== undefined && change.to !== undefined) {
        const made = await mkdir(dirname(change.to), { recursive: true });
        if (made !== undefined) madeDirs.push({ first: made, deepest: dirname(change.to) });
        temps.set(change, await writeTempFile(change.to, change.content, change.mode));
      }
      if (change.from !== undefined) backups.set(change.from, await linkBackup(change.from));
    }
    for (const change of changes) {
      const temp = temps.get(change);
      if (temp !== undefined && change.to !== undefined) {
        const to = change.to;
        const replaced = change.operation === "modify" ? backups.get(to) : undefined;
        await fs.rename(temp, to);
        temps.delete(change);
        undo.push(replaced ? () => fs.rename(replaced, to) : () => fs.unlink(to));
      }
      if (change.from !== undefined && change.operation !== "modify") {
        const from = change.from;
        const backup = backups.get(from) as string;
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
        `${(err as Error).message}; undoing the applied part failed too (${undoErrors.join("; ")}); backups kept: ${[...backups.values()].join(", ")}`,
      );
    }
    throw err;
  } finally {
    for (const temp of temps.values()) await unlink(temp).catch(() => undefined);
    // After a successful undo a backup has been renamed back into place, so ENOENT here is expected.
    if (!keepBackups) for (const backup of backups.values()) await unlink(backup).catch(() => undefined);
    if (failed) for (const dirs of madeDirs.reverse()) await removeEmptyDirs(dirs.deepest, dirs.first);
  }
}

/** Removes `deepest` and its parents up to and including `first`, as long as each is empty. */
async function removeEmptyDirs(deepest: string, first: string): Promise<void> {
  for (let dir = deepest; dir.startsWith(first); dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return;
    }
    if (dir === first) return;
  }
}
