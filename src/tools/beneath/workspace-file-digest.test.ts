import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { workspaceFileDigest } from "./workspace-file-digest.js";

let root: string;
let ws: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "echo-digest-"));
  ws = join(root, "ws");
  await mkdir(join(ws, "sub"), { recursive: true });
  await writeFile(join(ws, "x.sh"), "echo hi\n");
  await writeFile(join(ws, "sub", "y.sh"), "echo sub\n");
  await writeFile(join(root, "secret.sh"), "echo secret\n");
  await symlink(join(root, "secret.sh"), join(ws, "out-link.sh"));
  await symlink("x.sh", join(ws, "in-link.sh"));
  await symlink(root, join(ws, "up"));
  execFileSync("mkfifo", [join(ws, "fifo")]);
});

const sha = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

describe("workspaceFileDigest reads only files of the workspace, never through a link out of it", () => {
  it.each([
    ["x.sh", ".", () => sha("echo hi\n")],
    ["y.sh", "sub", () => sha("echo sub\n")],
    ["sub/y.sh", ".", () => sha("echo sub\n")],
    ["in-link.sh", ".", () => sha("echo hi\n")],
    ["out-link.sh", ".", () => "outside the workspace (not read)"],
    ["up/secret.sh", ".", () => "outside the workspace (not read)"],
    ["../secret.sh", ".", () => "outside the workspace (not read)"],
    ["~/.bashrc", ".", () => "outside the workspace (not read)"],
    ["missing.sh", ".", () => "missing"],
    ["sub", ".", () => "not a regular file"],
    ["fifo", ".", () => "not a regular file"],
  ])("%s from %s", async (path, cwd, expected) => {
    expect(await workspaceFileDigest(ws, join(ws, cwd), path)).toBe(expected());
  });

  it("an absolute path inside the workspace is read; one outside is not", async () => {
    expect(await workspaceFileDigest(ws, ws, join(ws, "x.sh"))).toBe(sha("echo hi\n"));
    expect(await workspaceFileDigest(ws, ws, join(root, "secret.sh"))).toBe(
      "outside the workspace (not read)",
    );
  });

  it("a file over the limit is named by its size, not read", async () => {
    expect(await workspaceFileDigest(ws, ws, "x.sh", 3)).toBe("too large to read (8 bytes)");
  });
});
