import { lstat, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { viewedPath } from "../beneath/workspace-view.js";

/**
 * A git directory of the runner's own for one call, standing in for the repository's `.git`: every
 * entry of the real `.git` is linked in (objects, refs, packed-refs, index, logs, info, MERGE_HEAD,
 * ...) except `config`, `config.worktree` and `hooks`, and `HEAD` is copied. Its `config` is
 * written here and says only what git needs to read the repository (format version, object
 * format). So the repository's configuration — and every program it names, filter drivers and
 * textconv included, and every file it includes — is never read, and a process rewriting
 * `.git/config` during the call changes nothing.
 */
export interface ShadowGitDir {
  readonly dir: string;
  dispose(): Promise<void>;
}

/** Entries of `.git` not carried over: configuration and hooks are the runner's own (none). */
const NOT_LINKED = new Set(["config", "config.worktree", "hooks", "HEAD"]);

/** A `.git` entry that is itself a link: git would follow it out of the workspace. */
export class ForeignGitEntry extends Error {
  constructor(readonly entry: string) {
    super(`.git/${entry} is a symbolic link`);
  }
}

/**
 * Builds the shadow directory for the repository whose work tree is `root` (a real path inside the
 * workspace, read in the run's workspace view). `objectFormat` is the repository's
 * `extensions.objectformat` ("sha256"), or undefined for sha1. Throws {@link ForeignGitEntry} for a
 * linked entry.
 */
export async function createShadowGitDir(
  root: string,
  objectFormat: string | undefined,
): Promise<ShadowGitDir> {
  const gitDir = `${root}/.git`;
  const names = await readdir(viewedPath(gitDir));
  for (const name of names) {
    if ((await lstat(viewedPath(`${gitDir}/${name}`))).isSymbolicLink()) throw new ForeignGitEntry(name);
  }
  const head = await readFile(viewedPath(`${gitDir}/HEAD`));
  const dir = await mkdtemp(join(tmpdir(), "echo-git-"));
  try {
    for (const name of names) {
      // Linked by the path git resolves: inside a layer's namespace that path is the layer.
      if (!NOT_LINKED.has(name)) await symlink(`${gitDir}/${name}`, join(dir, name));
    }
    await writeFile(join(dir, "HEAD"), head);
    const config =
      objectFormat === undefined
        ? "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        : `[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectformat = ${objectFormat}\n`;
    await writeFile(join(dir, "config"), config);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}
