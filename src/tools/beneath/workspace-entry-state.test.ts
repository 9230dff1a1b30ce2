import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { workspaceEntryState } from "./workspace-entry-state.js";

let root: string;
let ws: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "echo-entry-state-"));
  ws = join(root, "ws");
  await mkdir(join(ws, "drafts"), { recursive: true });
  await mkdir(join(ws, "many"), { recursive: true });
  await writeFile(join(ws, "drafts", "a.md"), "12345");
  await writeFile(join(ws, "drafts", "b.md"), "");
  for (let i = 0; i < 7; i++) await writeFile(join(ws, "many", `f${i}`), "x");
  await mkdir(join(root, "outside"), { recursive: true });
  await writeFile(join(root, "outside", "secret"), "top secret");
  await symlink(join(root, "outside"), join(ws, "out-link"));
  await symlink(join(root, "outside", "secret"), join(ws, "secret-link"));
  execFileSync("mkfifo", [join(ws, "fifo")]);
});

describe("workspaceEntryState says what exists at a path, reading beneath the workspace only", () => {
  it.each([
    ["drafts", ".", "folder, 2 entries"],
    ["drafts/a.md", ".", "file, 5 bytes"],
    ["a.md", "drafts", "file, 5 bytes"],
    ["drafts/b.md", ".", "file, 0 bytes"],
    ["nothing-here", ".", "missing"],
    ["drafts/none/deeper", ".", "missing"],
    ["secret-link", ".", "a symbolic link (not followed)"],
    ["out-link", ".", "a symbolic link (not followed)"],
    ["out-link/secret", ".", "behind a symbolic link or a file (not followed)"],
    ["drafts/a.md/x", ".", "behind a symbolic link or a file (not followed)"],
    ["../outside/secret", ".", "outside the workspace (not read)"],
    ["/etc/passwd", ".", "outside the workspace (not read)"],
    ["~/.ssh/id_rsa", ".", "outside the workspace (not read)"],
    ["fifo", ".", "not a file or a folder (not read)"],
    [".", ".", "the workspace itself"],
  ])("%s (from %s): %s", async (path, cwd, expected) => {
    expect(await workspaceEntryState(ws, join(ws, cwd), path)).toBe(expected);
  });

  it("counts a folder's entries up to the cap", async () => {
    expect(await workspaceEntryState(ws, ws, "many", 5)).toBe("folder, more than 5 entries");
    expect(await workspaceEntryState(ws, ws, "many", 7)).toBe("folder, 7 entries");
  });
});
