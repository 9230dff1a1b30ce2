import { readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import { callContext, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createPatchTool } from "./patch.js";
import { parseUnifiedDiff } from "./patch-apply.js";

const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
const tool = createPatchTool({ pathFence: fence, limits: DEFAULT_BUILTIN_LIMITS });

const MODIFY_A = ["--- a/a.txt", "+++ b/a.txt", "@@ -1,3 +1,3 @@", " one", "-two", "+TWO", " three", ""].join(
  "\n",
);
const MODIFY_B = ["--- a/b.txt", "+++ b/b.txt", "@@ -1,2 +1,2 @@", " alpha", "-beta", "+BETA", ""].join("\n");
const CREATE_C = ["--- /dev/null", "+++ b/sub/c.txt", "@@ -0,0 +1,2 @@", "+new", "+file", ""].join("\n");
const DELETE_D = ["--- a/d.txt", "+++ /dev/null", "@@ -1 +0,0 @@", "-bye", ""].join("\n");

async function project(): Promise<string> {
  const ws = await tempWorkspace();
  await writeFile(join(ws, "a.txt"), "one\ntwo\nthree\n");
  await writeFile(join(ws, "b.txt"), "alpha\nbeta\n");
  await writeFile(join(ws, "d.txt"), "bye\n");
  return ws;
}

async function snapshot(ws: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(ws, { recursive: true })).sort()) {
    out[name] = await readFile(join(ws, name), "utf8").catch(() => "<dir>");
  }
  return out;
}

describe("patch", () => {
  it("modifies, creates and deletes files from one unified diff", async () => {
    const ws = await project();
    const result = await invokeTool(
      tool,
      { patch: MODIFY_A + MODIFY_B + CREATE_C + DELETE_D },
      callContext(tool, ws),
    );
    expect(result).toMatchObject({
      success: true,
      output: "Applied the patch: modified a.txt, modified b.txt, created sub/c.txt, deleted d.txt",
    });
    expect(await snapshot(ws)).toEqual({
      "a.txt": "one\nTWO\nthree\n",
      "b.txt": "alpha\nBETA\n",
      sub: "<dir>",
      "sub/c.txt": "new\nfile\n",
    });
  });

  it("changes no file when one file's hunk does not apply", async () => {
    const ws = await project();
    await writeFile(join(ws, "b.txt"), "alpha\nbeta changed\n");
    const before = await snapshot(ws);
    const result = await invokeTool(tool, { patch: MODIFY_A + MODIFY_B + CREATE_C }, callContext(tool, ws));
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    expect(!result.success && result.error).toContain("b.txt does not match the patch");
    expect(await snapshot(ws)).toEqual(before);
  });

  it("undoes the files already written when a later rename fails", async () => {
    const ws = await project();
    const before = await snapshot(ws);
    let renames = 0;
    const flaky = createPatchTool({
      pathFence: fence,
      limits: DEFAULT_BUILTIN_LIMITS,
      commitFs: {
        async rename(from, to) {
          // The second commit rename fails; undo renames (backups back into place) go through.
          if (!from.includes(".echo-bak-") && ++renames === 2) throw new Error("disk on fire");
          await rename(from, to);
        },
        unlink,
      },
    });
    const result = await invokeTool(flaky, { patch: MODIFY_A + MODIFY_B + CREATE_C }, callContext(flaky, ws));
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    expect(!result.success && result.error).toContain("disk on fire");
    expect(await snapshot(ws)).toEqual(before);
  });

  it("does not apply twice: a re-run finds the context changed and changes nothing", async () => {
    const ws = await project();
    expect(await invokeTool(tool, { patch: MODIFY_A }, callContext(tool, ws))).toMatchObject({
      success: true,
    });
    const again = await invokeTool(tool, { patch: MODIFY_A }, callContext(tool, ws));
    expect(again).toMatchObject({ success: false, errorKind: "business" });
    expect(await readFile(join(ws, "a.txt"), "utf8")).toBe("one\nTWO\nthree\n");
  });

  it("refuses to create a file that exists, and to delete one whose content differs", async () => {
    const ws = await project();
    await writeFile(join(ws, "d.txt"), "bye\nand more\n");
    const create = CREATE_C.replace("sub/c.txt", "a.txt");
    const result = await invokeTool(tool, { patch: create + DELETE_D }, callContext(tool, ws));
    expect(!result.success && result.error).toContain("a.txt already exists");
    expect(!result.success && result.error).toContain("d.txt would not be empty after the patch");
  });

  it.each([
    [{ patch: "not a diff at all" }, "patch"],
    [{ patch: "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\nbogus line\n" }, "patch"],
    [{ patch: MODIFY_A + MODIFY_A }, "patch"],
    [{ patch: "" }, "patch"],
    [{ diff: MODIFY_A }, "diff"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const ws = await project();
    const result = await invokeTool(tool, args, callContext(tool, ws));
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it.each([
    ["../outside.txt", "path.outside-workspace"],
    [".git/config", "path.protected"],
    [".env", "path.protected"],
  ])("denies a patch touching %s and changes nothing", async (path, rule) => {
    const ws = await project();
    const evil = `${MODIFY_A}${CREATE_C.replace("sub/c.txt", path)}`;
    const ctx = callContext(tool, ws);
    expect(tool.checkPermissions({ patch: evil }, ctx)).toMatchObject({ behavior: "deny" });
    const before = await snapshot(ws);
    expect(await invokeTool(tool, { patch: evil }, ctx)).toMatchObject({
      errorKind: "denied",
      data: { rule },
    });
    expect(await snapshot(ws)).toEqual(before);
  });

  it.each([
    [MODIFY_A, false],
    [CREATE_C, false],
    [MODIFY_A + DELETE_D, true],
    ["garbage", true],
  ])("says whether a patch is destructive (%#)", (patch, destructive) => {
    expect(tool.isDestructive({ patch })).toBe(destructive);
  });

  it("parses git-style renames into one rename operation", () => {
    const rename = ["--- a/old.txt", "+++ b/new.txt", "@@ -1 +1 @@", "-x", "+y", ""].join("\n");
    expect(parseUnifiedDiff(rename)).toMatchObject([{ operation: "rename", from: "old.txt", to: "new.txt" }]);
  });
});
