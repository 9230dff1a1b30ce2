import { lstat, readdir, readlink } from "node:fs/promises";
import { RunnerError } from "../../shared/index.js";
import { HeldDir } from "../beneath/held-dir.js";
import { holdFolder } from "../beneath/held-entry.js";
import { type OverlayMarks, readOverlayMarks } from "./overlay-marks.js";

/** What a run's layer does to one path of its workspace (paths relative, `/`-separated). */
export type LayerChange =
  | { readonly kind: "mkdir"; readonly path: string; readonly mode: number }
  | {
      readonly kind: "write";
      readonly path: string;
      readonly mode: number;
      readonly size: number;
      /** Whether the workspace had a file there (changed) or not (added). */
      readonly existed: boolean;
    }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string }
  | { readonly kind: "delete"; readonly path: string };

export const LAYER_CHANGE_KINDS = ["mkdir", "write", "symlink", "delete"] as const;

/** A run's change set, in the order it lands: folders (shallow first), files and links, then deletions (deepest first). */
export interface ChangeSet {
  readonly changes: readonly LayerChange[];
  /**
   * FIFOs and sockets the run left (a dev server's socket, a named pipe): never landed, since they
   * mean nothing without the run's processes; named so a person sees them.
   */
  readonly skipped?: readonly string[];
}

function join(rel: string, name: string): string {
  return rel === "" ? name : `${rel}/${name}`;
}

function unsupported(path: string, what: string): RunnerError {
  return new RunnerError(
    "WORKSPACE_PATH_CHANGED",
    `the run's layer has ${what} at ${path}, which cannot be landed; nothing was landed (discard the layer or land it by hand)`,
    { data: { path } },
  );
}

/** The kind of the workspace's entry at `rel` (no link followed on the way or at the end), or undefined. */
async function lowerKind(lower: HeldDir, rel: string): Promise<"dir" | "file" | "other" | undefined> {
  const parts = rel.split("/");
  const name = parts.pop() as string;
  let dir: HeldDir;
  try {
    dir = parts.length === 0 ? lower.again() : lower.descend(parts.join("/"));
  } catch {
    return undefined;
  }
  try {
    const info = await lstat(dir.entry(name)).catch(() => undefined);
    if (info === undefined) return undefined;
    return info.isDirectory() ? "dir" : info.isFile() ? "file" : "other";
  } finally {
    dir.close();
  }
}

/**
 * Reads a layer's change set from its upper folder against the workspace it lies over (both real
 * paths), walking both by descriptor and never following a link. A whiteout (a 0/0 character
 * device) deletes; an opaque folder deletes what the workspace had below it that the layer does not;
 * a folder the workspace lacks is made. A FIFO or socket is left out (listed in `skipped`); a device,
 * a redirected folder or a metacopy file refuses the whole set (WORKSPACE_PATH_CHANGED naming the path).
 */
export async function readChangeSet(upper: string, workspace: string): Promise<ChangeSet> {
  const marks = await readOverlayMarks(upper);
  const top = HeldDir.open(upper);
  const held = await holdFolder(workspace);
  if (typeof held === "string") {
    top.close();
    throw new RunnerError(
      "WORKSPACE_PATH_CHANGED",
      `the workspace ${workspace} is ${held === "missing" ? "gone" : "not a folder"}`,
    );
  }
  const mkdirs: LayerChange[] = [];
  const writes: LayerChange[] = [];
  const deletes: LayerChange[] = [];
  const skipped: string[] = [];
  const mark = (rel: string): OverlayMarks | undefined => marks.get(rel);
  const walk = async (dir: HeldDir, rel: string): Promise<void> => {
    const names = (await readdir(dir.self)).sort();
    if (mark(rel)?.opaque && rel !== "") {
      // The folder replaced the workspace's: what was below it and is not in the layer is gone.
      const below = await holdFolder(`${workspace}/${rel}`).catch(() => "missing" as const);
      if (typeof below !== "string") {
        try {
          for (const name of (await readdir(below.self)).sort()) {
            if (!names.includes(name)) deletes.push({ kind: "delete", path: join(rel, name) });
          }
        } finally {
          below.close();
        }
      }
    }
    for (const name of names) {
      const path = join(rel, name);
      const info = await lstat(dir.entry(name));
      const marked = mark(path);
      if (marked?.redirect) throw unsupported(path, "a renamed folder (overlay redirect)");
      if (marked?.metacopy) throw unsupported(path, "a file whose data was not copied up (overlay metacopy)");
      if (info.isCharacterDevice() && info.rdev === 0) {
        if ((await lowerKind(held, path)) !== undefined) deletes.push({ kind: "delete", path });
      } else if (info.isDirectory()) {
        const below = await lowerKind(held, path);
        if (below !== "dir") {
          if (below !== undefined) deletes.push({ kind: "delete", path });
          mkdirs.push({ kind: "mkdir", path, mode: info.mode & 0o7777 });
        }
        const child = dir.child(name);
        try {
          await walk(child, path);
        } finally {
          child.close();
        }
      } else if (info.isFile()) {
        const below = await lowerKind(held, path);
        if (below === "dir") deletes.push({ kind: "delete", path });
        writes.push({
          kind: "write",
          path,
          mode: info.mode & 0o7777,
          size: info.size,
          existed: below === "file",
        });
      } else if (info.isSymbolicLink()) {
        writes.push({ kind: "symlink", path, target: await readlink(dir.entry(name)) });
      } else if (info.isFIFO() || info.isSocket()) {
        skipped.push(path);
      } else {
        throw unsupported(path, "a device file");
      }
    }
  };
  try {
    await walk(top, "");
  } finally {
    top.close();
    held.close();
  }
  // A path deleted because something else takes its place goes first; other deletions go last,
  // deepest first, once what is written no longer needs them.
  const depth = (c: LayerChange) => c.path.split("/").length;
  const placed = new Set([...mkdirs, ...writes].map((c) => c.path));
  return {
    changes: [
      ...deletes.filter((d) => placed.has(d.path)),
      ...mkdirs.sort((a, b) => depth(a) - depth(b)),
      ...writes,
      ...deletes.filter((d) => !placed.has(d.path)).sort((a, b) => depth(b) - depth(a)),
    ],
    ...(skipped.length > 0 ? { skipped } : {}),
  };
}
