import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Test fixtures of the git tools (used only by their tests): real repositories made with the real
 * git, with no global or system configuration.
 */

/** Runs the host's git in `repo` with a fixed identity and no outside configuration; returns stdout. */
export function git(repo: string, ...args: string[]): string {
  return execFileSync("/usr/bin/git", ["-C", repo, ...args], {
    encoding: "utf8",
    env: {
      PATH: "/usr/bin:/bin",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "Ann Author",
      GIT_AUTHOR_EMAIL: "ann@example.org",
      GIT_COMMITTER_NAME: "Ann Author",
      GIT_COMMITTER_EMAIL: "ann@example.org",
    },
  });
}

/**
 * A repository in `dir` with two commits: "add readme" (README.md) then "fix the greeting"
 * (hello.txt changed from hello to hello, world), on branch main.
 */
export async function twoCommitRepo(dir: string): Promise<void> {
  git(dir, "init", "-q", "-b", "main");
  await writeFile(join(dir, "README.md"), "# demo\n");
  await writeFile(join(dir, "hello.txt"), "hello\n");
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "add readme");
  await writeFile(join(dir, "hello.txt"), "hello, world\n");
  git(dir, "commit", "-q", "-am", "fix the greeting");
}
