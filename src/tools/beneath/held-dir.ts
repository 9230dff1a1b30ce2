import { closeSync, constants, existsSync, mkdirSync, openSync } from "node:fs";
import { RunnerError } from "../../shared/index.js";
import { currentWorkspaceView } from "./workspace-view.js";

/** Linux's O_PATH: a descriptor that names a directory without opening its contents (node:fs does not export it). */
const O_PATH = 0o10000000;
const DIRECTORY_FLAGS = O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Where the kernel lists this process's descriptors; a path through it starts at the directory a descriptor holds. */
const FD_DIR = "/proc/self/fd";

let procChecked = false;

function requireProc(): void {
  if (procChecked) return;
  if (!existsSync(FD_DIR)) {
    throw new RunnerError(
      "WORKSPACE_PATH_CHANGED",
      `file tools need ${FD_DIR} (Linux with /proc mounted) to act on the workspace by descriptor; nothing was read or written`,
    );
  }
  procChecked = true;
}

/** True when `name` is one path component that names an entry (not `.`, `..`, empty, or with a slash or NUL). */
export function isEntryName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\u0000");
}

function changed(path: string, why: string): RunnerError {
  return new RunnerError(
    "WORKSPACE_PATH_CHANGED",
    `${path} changed while it was being used (${why}); nothing was read or written there. If a process of the run is moving files around, let it finish and try again`,
    { data: { path } },
  );
}

/** The components of an absolute, normalised real path. */
function componentsOf(realPath: string): string[] {
  if (!realPath.startsWith("/")) throw new TypeError(`not an absolute path: ${realPath}`);
  const parts = realPath.split("/").filter((c) => c !== "");
  for (const part of parts) {
    if (!isEntryName(part)) throw new TypeError(`not a real path (has ${JSON.stringify(part)}): ${realPath}`);
  }
  return parts;
}

/**
 * A directory held open by descriptor (O_PATH). Whatever is renamed, swapped or replaced by a
 * symbolic link on the way to it afterwards, paths made with {@link HeldDir.entry} name entries of
 * this very directory: the kernel starts their lookup at the descriptor, not at a path string.
 *
 * Opening walks the real path from `/` (the run's namespace root when its layer is active, see
 * workspace-view.ts) one component at a time with O_NOFOLLOW, so a component
 * that is (or has become) a symbolic link is refused rather than followed. The path fence checks a
 * real path; holding it this way means the directory acted on is the one that was checked.
 */
export class HeldDir {
  #fd: number | undefined;

  private constructor(
    fd: number,
    /** The real path the directory was reached by (for messages; never reopened by name). */
    readonly path: string,
  ) {
    this.#fd = fd;
  }

  /** Holds the directory at `realPath` (absolute, symlink-free), refusing any symbolic link on the way. */
  static open(realPath: string): HeldDir {
    return HeldDir.walk(realPath, false).dir;
  }

  /**
   * Holds the directory at `realPath`, creating each missing component (mode 0o777 less the umask),
   * like `mkdir -p` but never through a symbolic link. Returns the directories it created, deepest last.
   */
  static openCreating(realPath: string): { dir: HeldDir; created: string[] } {
    return HeldDir.walk(realPath, true);
  }

  private static walk(realPath: string, create: boolean): { dir: HeldDir; created: string[] } {
    requireProc();
    const parts = componentsOf(realPath);
    // In a run's layer the walk starts at its namespace's root: a descriptor's magic link, which
    // must be followed (O_NOFOLLOW would refuse it); every component after it is walked as always.
    const view = currentWorkspaceView();
    const start =
      view === undefined
        ? openSync("/", DIRECTORY_FLAGS)
        : openSync(view.root, O_PATH | constants.O_DIRECTORY);
    let current = new HeldDir(start, "/");
    const created: string[] = [];
    try {
      for (const part of parts) {
        const next = current.openChild(part, create);
        if (next.created) created.push(next.dir.path);
        current.close();
        current = next.dir;
      }
    } catch (err) {
      current.close();
      throw err;
    }
    return { dir: current, created };
  }

  private openChild(name: string, create: boolean): { dir: HeldDir; created: boolean } {
    const path = this.path === "/" ? `/${name}` : `${this.path}/${name}`;
    let made = false;
    for (;;) {
      try {
        return { dir: new HeldDir(openSync(this.entry(name), DIRECTORY_FLAGS), path), created: made };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT" && create && !made) {
          try {
            mkdirSync(this.entry(name));
            made = true;
          } catch (mkdirErr) {
            if ((mkdirErr as NodeJS.ErrnoException).code !== "EEXIST") throw mkdirErr;
          }
          continue;
        }
        if (code === "ENOTDIR" || code === "ELOOP") {
          throw changed(path, "it is not a folder: a file, or a symbolic link, which is never followed");
        }
        throw err;
      }
    }
  }

  /** Holds the child directory `name` (one component), never following a symbolic link. */
  child(name: string): HeldDir {
    return this.openChild(name, false).dir;
  }

  /** Holds the directory `relative` (components separated by `/`, no `..`) beneath this one. */
  descend(relative: string): HeldDir {
    let current: HeldDir = this;
    try {
      for (const part of relative.split("/").filter((c) => c !== "" && c !== ".")) {
        if (!isEntryName(part)) throw new TypeError(`not a relative path beneath a folder: ${relative}`);
        const next = current.child(part);
        if (current !== this) current.close();
        current = next;
      }
    } catch (err) {
      if (current !== this) current.close();
      throw err;
    }
    return current === this ? this.again() : current;
  }

  /** A second hold on this same directory, closed on its own. */
  again(): HeldDir {
    // No O_NOFOLLOW here: the last component is the descriptor's own magic link, which must be followed.
    return new HeldDir(openSync(this.self, O_PATH | constants.O_DIRECTORY), this.path);
  }

  private get fd(): number {
    if (this.#fd === undefined) throw new Error(`${this.path} was already closed`);
    return this.#fd;
  }

  /** A path naming this directory through its descriptor (for readdir). */
  get self(): string {
    return `${FD_DIR}/${this.fd}`;
  }

  /**
   * A path naming the entry `name` of this directory through its descriptor. The lookup of `name`
   * itself follows a symbolic link only where the call does (open without O_NOFOLLOW, stat, readFile):
   * use it with lstat, open(O_NOFOLLOW), rename, unlink, link, mkdir, rmdir, readlink.
   */
  entry(name: string): string {
    if (!isEntryName(name)) throw new TypeError(`not an entry name: ${JSON.stringify(name)}`);
    return `${FD_DIR}/${this.fd}/${name}`;
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}
