import { lstat } from "node:fs/promises";
import { relative } from "node:path";
import { type ToolFailure, toolFailure } from "../../catalog/index.js";
import { viewedPath } from "../beneath/workspace-view.js";
import { fencePath, isPathInside, type PathFencePort } from "../path-fence-port.js";
import { checkPathArgument } from "./git-arguments.js";

/** A repository the git tools may read: its work tree's real path (the `.git` directory is in it). */
export interface GitRepository {
  readonly root: string;
}

/**
 * Files in `.git` that send git to objects or a repository elsewhere: a host path the workspace
 * chose would be read, outside the fence. Their presence makes the repository refused.
 */
const FOREIGN_POINTERS = ["objects/info/alternates", "commondir"] as const;

/**
 * The repository at `repo` (a directory inside the workspace, default the workspace itself),
 * checked by the path fence. Its `.git` must be a real directory there: a `.git` file (a linked
 * worktree or submodule) or link names a git directory elsewhere on the host, and alternates or a
 * common dir borrow one, so each is refused rather than followed. Paths are resolved in the run's
 * workspace view.
 */
export async function openRepository(
  fence: PathFencePort,
  repo: string | undefined,
): Promise<{ ok: true; repository: GitRepository } | { ok: false; result: ToolFailure }> {
  const shown = repo ?? ".";
  const invalid = checkPathArgument("repo", shown);
  if (invalid) return { ok: false, result: invalid };
  const fenced = fencePath(fence, shown, "read");
  if (!fenced.ok) return fenced;
  const root = fenced.path;
  const gitDir = await lstat(viewedPath(`${root}/.git`)).catch(() => undefined);
  if (gitDir === undefined) {
    return {
      ok: false,
      result: toolFailure(
        "business",
        `${shown} is not a git repository (no .git directory there); pass repo: the folder that holds .git`,
      ),
    };
  }
  if (!gitDir.isDirectory()) {
    return {
      ok: false,
      result: toolFailure(
        "denied",
        `${shown}/.git is a ${gitDir.isSymbolicLink() ? "symbolic link" : "file"}, which points git at a directory outside the workspace; only a repository whose .git directory is inside it can be read`,
        { rule: "git.foreign-git-dir" },
      ),
    };
  }
  for (const pointer of FOREIGN_POINTERS) {
    const found = await lstat(viewedPath(`${root}/.git/${pointer}`)).catch(() => undefined);
    if (found !== undefined) {
      return {
        ok: false,
        result: toolFailure(
          "denied",
          `${shown}/.git/${pointer} borrows objects or a repository from elsewhere on the host; such a repository cannot be read by the git tools`,
          { rule: "git.foreign-git-dir" },
        ),
      };
    }
  }
  return { ok: true, repository: { root } };
}

/**
 * A `path` argument as a pathspec relative to the repository root: checked for option and magic
 * syntax, fenced, and inside the repository. `undefined` path: no pathspec.
 */
export function repositoryPath(
  fence: PathFencePort,
  repository: GitRepository,
  path: string | undefined,
): { ok: true; pathspec: string[] } | { ok: false; result: ToolFailure } {
  if (path === undefined) return { ok: true, pathspec: [] };
  const invalid = checkPathArgument("path", path);
  if (invalid) return { ok: false, result: invalid };
  const fenced = fencePath(fence, path, "read");
  if (!fenced.ok) return fenced;
  if (!isPathInside(repository.root, fenced.path)) {
    return {
      ok: false,
      result: toolFailure("validation", `path ${JSON.stringify(path)} is outside the repository`, {
        fields: [{ field: "path", problem: "is outside the repository" }],
      }),
    };
  }
  const rel = relative(repository.root, fenced.path);
  return { ok: true, pathspec: [rel === "" ? "." : rel] };
}
