import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, realpath, rename, rm } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { withHeldEntry } from "./beneath/held-entry.js";

/** A path checked to stay inside a root, or why it does not. */
export type InsidePath = { ok: true; path: string } | { ok: false; problem: string };

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Resolves an existing `path` (relative to `root`, or absolute) and checks that its real path,
 * symlinks followed, stays inside `root`'s real path. Used by the tools that read a file the
 * agent names (skill files, images to analyse, packages to install).
 */
export async function resolveInside(root: string, path: string): Promise<InsidePath> {
  let realRoot: string;
  let real: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return { ok: false, problem: `${root} does not exist` };
  }
  try {
    real = await realpath(isAbsolute(path) ? path : resolve(root, path));
  } catch {
    return { ok: false, problem: `${path} does not exist` };
  }
  return isWithin(realRoot, real)
    ? { ok: true, path: real }
    : { ok: false, problem: `${path} is outside ${root}` };
}

/** A file to write, checked by {@link planWriteInside}. */
export type PlannedWrite = { ok: true; root: string; path: string } | { ok: false; problem: string };

/**
 * Plans writing a file `path` (relative to `root`) without touching the disk: the target must lie
 * inside `root`'s real path and its deepest existing ancestor's real path too (a symlinked folder
 * cannot lead out). The planned path is real: the ancestor's real path and the missing rest, so
 * {@link writeInside} can hold it component by component.
 */
export async function planWriteInside(root: string, path: string): Promise<PlannedWrite> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return { ok: false, problem: `${root} does not exist` };
  }
  const target = isAbsolute(path) ? path : resolve(realRoot, path);
  if (!isWithin(realRoot, target) || target === realRoot)
    return { ok: false, problem: `${path} is outside ${root}` };
  let ancestor = dirname(target);
  while (!(await lstat(ancestor).catch(() => undefined))) ancestor = dirname(ancestor);
  const realAncestor = await realpath(ancestor);
  if (!isWithin(realRoot, realAncestor)) return { ok: false, problem: `${path} is outside ${root}` };
  const realTarget = join(realAncestor, relative(ancestor, target));
  if (!isWithin(realRoot, realTarget) || realTarget === realRoot)
    return { ok: false, problem: `${path} is outside ${root}` };
  const existing = await lstat(realTarget).catch(() => undefined);
  if (existing?.isDirectory()) return { ok: false, problem: `${path} is a folder` };
  return { ok: true, root: realRoot, path: realTarget };
}

/**
 * Writes a planned file through its parent held by descriptor (missing folders created on the
 * way, never through a symbolic link: one swapped in since planning is refused with
 * WORKSPACE_PATH_CHANGED), as a temporary file renamed over the target, so a symlink at the target
 * is replaced, never followed, and no reader sees half a file.
 */
export async function writeInside(plan: { root: string; path: string }, bytes: Uint8Array): Promise<void> {
  if (!isWithin(plan.root, dirname(plan.path))) throw new Error(`${plan.path} is outside ${plan.root}`);
  await withHeldEntry(plan.path, { createParents: true }, async (entry) => {
    const temp = entry.dir.entry(`.${entry.name}.tmp-${randomBytes(4).toString("hex")}`);
    try {
      const handle = await open(
        temp,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o644,
      );
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
      await rename(temp, entry.at);
    } finally {
      await rm(temp, { force: true });
    }
  });
}
