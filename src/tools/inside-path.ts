import { randomBytes } from "node:crypto";
import { lstat, mkdir, realpath, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

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
 * cannot lead out). {@link writeInside} re-checks after creating the folders.
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
  if (!isWithin(realRoot, await realpath(ancestor)))
    return { ok: false, problem: `${path} is outside ${root}` };
  const existing = await lstat(target).catch(() => undefined);
  if (existing?.isDirectory()) return { ok: false, problem: `${path} is a folder` };
  return { ok: true, root: realRoot, path: target };
}

/**
 * Writes a planned file: creates its folders, checks again that the parent's real path is inside
 * the root (it may have changed since planning), then writes a temporary file and renames it over
 * the target, so a symlink at the target is replaced, never followed, and no reader sees half a file.
 */
export async function writeInside(plan: { root: string; path: string }, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(plan.path), { recursive: true });
  const parent = await realpath(dirname(plan.path));
  if (!isWithin(plan.root, parent)) throw new Error(`${plan.path} is outside ${plan.root}`);
  const target = join(parent, basename(plan.path));
  const temp = `${target}.tmp-${randomBytes(4).toString("hex")}`;
  try {
    await writeFile(temp, bytes);
    await rename(temp, target);
  } finally {
    await rm(temp, { force: true });
  }
}
