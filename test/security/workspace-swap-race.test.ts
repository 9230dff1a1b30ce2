import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { arch, homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyTool } from "../../src/catalog/index.js";
import type { ToolResult } from "../../src/catalog/tool-result.js";
import { createPathFence } from "../../src/guard/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../../src/tools/builtin-runtime.js";
import { createEditFileTool } from "../../src/tools/files/edit-file.js";
import { createListDirTool } from "../../src/tools/files/list-dir.js";
import { createPatchTool } from "../../src/tools/files/patch.js";
import { createReadFileTool } from "../../src/tools/files/read-file.js";
import { createSearchFilesTool } from "../../src/tools/files/search-files.js";
import { createWriteFileTool } from "../../src/tools/files/write-file.js";
import { callContext, fenceFactory, tempWorkspace } from "../../src/tools/registry/builtin-tools.fixture.js";
import { invokeTool } from "../../src/tools/registry/invoke-tool.js";

/**
 * The check-then-use race of the host-side file tools, against a real
 * RENAME_EXCHANGE flipper: a process that swaps the workspace folder `d` with `l`, a symbolic link
 * to a folder outside, as fast as the kernel lets it. Each tool is called thousands of times on a
 * path under `d`; none may read a byte of the outside folder or write anything into it. A control
 * does the old thing (fence check, then open the checked path by name) and must leak, which proves
 * the flipper really races.
 */

const ATTEMPTS = 2_000;
const OUTSIDE_SECRET = "OUTSIDE-SECRET-5f1c";
const OUTSIDE_ONLY_ENTRY = "outside-only-entry";
// renameat2(2), by architecture: perl's syscall() has no name table for it.
const RENAMEAT2: Record<string, number> = { x64: 316, arm64: 276 };

const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
const limits = DEFAULT_BUILTIN_LIMITS;
const tools = {
  read: createReadFileTool({ pathFence: fence, limits }),
  write: createWriteFileTool({ pathFence: fence, limits }),
  edit: createEditFileTool({ pathFence: fence, limits }),
  list: createListDirTool({ pathFence: fence, limits }),
  search: createSearchFilesTool({ pathFence: fence, limits }),
  patch: createPatchTool({ pathFence: fence, limits }),
};

let ws: string;
let outside: string;
let outsideSecretHash: string;
let flipper: ChildProcess;

function call(tool: AnyTool, args: Record<string, unknown>): Promise<ToolResult> {
  return invokeTool(tool, args, callContext(tool, ws));
}

async function outsideState(): Promise<{ names: string[]; secretHash: string }> {
  const names = (await readdir(outside)).sort();
  const secretHash = createHash("sha256")
    .update(await readFile(join(outside, "secret.txt")))
    .digest("hex");
  return { names, secretHash };
}

/** Starts the flipper and resolves once it has swapped at least once. */
async function startFlipper(a: string, b: string): Promise<ChildProcess> {
  const nr = RENAMEAT2[arch()];
  if (nr === undefined) throw new Error(`no renameat2 syscall number known for ${arch()}`);
  // AT_FDCWD = -100, RENAME_EXCHANGE = 2. Prints "flipping" after the first successful swap.
  const script = `my $n=0; $|=1; while (1) { if (syscall(${nr}, -100, $ARGV[0], -100, $ARGV[1], 2) == 0) { print "flipping\\n" if ++$n == 1 } else { die "renameat2: $!" } }`;
  const child = spawn("perl", ["-e", script, a, b], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`flipper exited with ${code}`)));
    child.stdout?.once("data", () => resolve());
  });
  return child;
}

beforeAll(async () => {
  ws = await tempWorkspace("race-ws");
  outside = await tempWorkspace("race-outside");
  await writeFile(join(outside, "secret.txt"), `${OUTSIDE_SECRET} alpha\n`);
  await writeFile(join(outside, OUTSIDE_ONLY_ENTRY), "x\n");
  outsideSecretHash = (await outsideState()).secretHash;
  await mkdir(join(ws, "d"));
  await writeFile(join(ws, "d", "secret.txt"), "inside alpha\n");
  await symlink(outside, join(ws, "l"));
  flipper = await startFlipper(join(ws, "d"), join(ws, "l"));
});

afterAll(() => {
  flipper?.kill("SIGKILL");
});

describe("host-side file tools under a RENAME_EXCHANGE flipper", () => {
  it("the control (check, then open the checked path by name) does leak: the race is real", async () => {
    const check = fence(ws, true);
    let leaked = 0;
    for (let i = 0; i < 20_000 && leaked === 0; i++) {
      const verdict = check.check("d/secret.txt", "read");
      if (verdict.verdict !== "allow") continue;
      const text = await readFile(verdict.resolvedPath, "utf8").catch(() => "");
      if (text.includes(OUTSIDE_SECRET)) leaked++;
    }
    expect(leaked).toBeGreaterThan(0);
  });

  it("read_file never returns a byte from outside", async () => {
    let inside = 0;
    for (let i = 0; i < ATTEMPTS; i++) {
      const result = await call(tools.read, { path: "d/secret.txt" });
      expect(JSON.stringify(result)).not.toContain(OUTSIDE_SECRET);
      if (result.success) inside++;
    }
    // Not a test that passes by refusing everything: some reads land on the real folder.
    expect(inside).toBeGreaterThan(0);
  });

  it("list_dir never lists the outside folder", async () => {
    let listed = 0;
    for (let i = 0; i < ATTEMPTS; i++) {
      const result = await call(tools.list, { path: "d" });
      expect(JSON.stringify(result)).not.toContain(OUTSIDE_ONLY_ENTRY);
      if (result.success) listed++;
    }
    expect(listed).toBeGreaterThan(0);
  });

  it("search_files never reads the outside folder", async () => {
    for (let i = 0; i < ATTEMPTS / 2; i++) {
      const result = await call(tools.search, { path: "d", pattern: "alpha" });
      expect(JSON.stringify(result)).not.toContain(OUTSIDE_SECRET);
    }
  });

  it("write_file, edit_file and patch never create or change anything outside", async () => {
    let written = 0;
    for (let i = 0; i < ATTEMPTS; i++) {
      const results = await Promise.all([
        call(tools.write, { path: `d/new-${i}.txt`, content: "written\n" }),
        call(tools.write, { path: `d/dir-${i}/deeper/new.txt`, content: "written\n" }),
        call(tools.edit, { path: "d/secret.txt", old_string: "alpha", new_string: "alpha!" }),
        call(tools.patch, {
          patch: [`--- /dev/null`, `+++ b/d/patched-${i}.txt`, "@@ -0,0 +1 @@", "+patched", ""].join("\n"),
        }),
      ]);
      // An edit that lands inside turns "alpha" into "alpha!", which still holds "alpha" once.
      written += results.filter((r) => r.success).length;
    }
    const after = await outsideState();
    expect(after.names).toEqual(["secret.txt", OUTSIDE_ONLY_ENTRY].sort());
    expect(after.secretHash).toBe(outsideSecretHash);
    expect(written).toBeGreaterThan(0);
  });
});
