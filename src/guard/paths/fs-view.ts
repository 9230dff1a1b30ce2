/** File kinds the path fence tells apart. */
export const FS_ENTRY_KINDS = ["file", "directory", "symlink", "other"] as const;
export type FsEntryKind = (typeof FS_ENTRY_KINDS)[number];

/**
 * A read-only view of the file system, injected so the path fence stays pure. The CLI and the
 * tools provide one backed by node:fs; tests provide an in-memory one.
 */
export interface FsView {
  /** The entry's kind without following a final symlink (`lstat`), or undefined when absent. */
  lstat(path: string): FsEntryKind | undefined;
  /** The target of the symlink at `path`, as stored (`readlink`). */
  readlink(path: string): string;
}

/** An in-memory {@link FsView}: paths to kinds, and symlinks to their stored targets. */
export function memoryFsView(entries: Readonly<Record<string, FsEntryKind | { link: string }>>): FsView {
  return {
    lstat(path) {
      const entry = entries[path];
      if (entry === undefined) return undefined;
      return typeof entry === "string" ? entry : "symlink";
    },
    readlink(path) {
      const entry = entries[path];
      if (entry === undefined || typeof entry === "string") throw new Error(`${path} is not a symlink`);
      return entry.link;
    },
  };
}
