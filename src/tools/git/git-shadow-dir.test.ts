import { lstat, readdir, readFile, readlink, rename, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { createShadowGitDir, ForeignGitEntry } from "./git-shadow-dir.js";
import { git, twoCommitRepo } from "./git-test-repo.fixture.js";

describe("the shadow git directory", () => {
  it("links every .git entry but config and hooks, copies HEAD, and writes a config of its own", async () => {
    const repo = await tempWorkspace("git-shadow");
    await twoCommitRepo(repo);
    git(repo, "config", "filter.evil.clean", "touch /tmp/never");
    const shadow = await createShadowGitDir(repo, undefined);
    try {
      const names = (await readdir(shadow.dir)).sort();
      expect(names).toContain("objects");
      expect(names).toContain("refs");
      expect(names).toContain("index");
      expect(names).not.toContain("hooks");
      expect(await readlink(join(shadow.dir, "objects"))).toBe(`${repo}/.git/objects`);
      expect((await lstat(join(shadow.dir, "HEAD"))).isFile()).toBe(true);
      expect((await lstat(join(shadow.dir, "config"))).isFile()).toBe(true);
      expect(await readFile(join(shadow.dir, "config"), "utf8")).toBe(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
      );
    } finally {
      await shadow.dispose();
    }
    await expect(lstat(shadow.dir)).rejects.toThrow();
  });

  it("carries a sha256 object format", async () => {
    const repo = await tempWorkspace("git-shadow");
    await twoCommitRepo(repo);
    const shadow = await createShadowGitDir(repo, "sha256");
    try {
      expect(await readFile(join(shadow.dir, "config"), "utf8")).toContain("objectformat = sha256");
    } finally {
      await shadow.dispose();
    }
  });

  it("refuses a .git entry that is a link", async () => {
    const repo = await tempWorkspace("git-shadow");
    await twoCommitRepo(repo);
    const outside = await tempWorkspace("git-shadow-out");
    await twoCommitRepo(outside);
    await rename(join(repo, ".git/refs"), join(repo, "old-refs"));
    await symlink(join(outside, ".git/refs"), join(repo, ".git/refs"));
    await expect(createShadowGitDir(repo, undefined)).rejects.toBeInstanceOf(ForeignGitEntry);
  });
});
