import { readFile, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import { callContext, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createEditFileTool, findOccurrences } from "./edit-file.js";

const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
const tool = createEditFileTool({ pathFence: fence, limits: DEFAULT_BUILTIN_LIMITS });

async function edit(ws: string, args: Record<string, unknown>) {
  return invokeTool(tool, args, callContext(tool, ws));
}

describe("edit_file", () => {
  it("replaces the one exact occurrence and says on which line", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "a.ts"), "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const result = await edit(ws, { path: "a.ts", old_string: "const b = 2;", new_string: "const b = 20;" });
    expect(result).toMatchObject({ success: true, output: "Edited a.ts: replaced 1 occurrence at line 2" });
    expect(await readFile(join(ws, "a.ts"), "utf8")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
  });

  it("fails without writing when old_string does not occur", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "a.ts"), "const a = 1;\n");
    const before = await stat(join(ws, "a.ts"));
    const result = await edit(ws, { path: "a.ts", old_string: "const a  = 1;", new_string: "x" });
    expect(result).toMatchObject({ success: false, errorKind: "business", data: { matches: 0 } });
    expect((await stat(join(ws, "a.ts"))).mtimeMs).toBe(before.mtimeMs);
  });

  it("fails without writing when old_string occurs several times, naming the lines", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "a.ts"), "x();\ny();\nx();\n");
    const result = await edit(ws, { path: "a.ts", old_string: "x();", new_string: "z();" });
    expect(result).toMatchObject({
      success: false,
      errorKind: "business",
      data: { matches: 2, lines: [1, 3] },
    });
    expect(await readFile(join(ws, "a.ts"), "utf8")).toBe("x();\ny();\nx();\n");
  });

  it("is not idempotent: a second run edits again when the new text contains the old", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "v.txt"), "version 1\n");
    const args = { path: "v.txt", old_string: "version 1", new_string: "version 1.1" };
    expect(await edit(ws, args)).toMatchObject({ success: true });
    expect(await edit(ws, args)).toMatchObject({ success: true });
    // Only the journal keeps a replay from doing this, so the tool must not claim idempotence.
    expect(await readFile(join(ws, "v.txt"), "utf8")).toBe("version 1.1.1\n");
    expect(tool.idempotent).toBe(false);
  });

  it("refuses binary and missing files", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "b.bin"), Buffer.from([1, 0, 2]));
    expect(await edit(ws, { path: "b.bin", old_string: "a", new_string: "b" })).toMatchObject({
      errorKind: "business",
    });
    expect(await edit(ws, { path: "none.txt", old_string: "a", new_string: "b" })).toMatchObject({
      errorKind: "business",
    });
  });

  it.each([
    [{ path: "a.ts", old_string: "", new_string: "x" }, "old_string"],
    [{ path: "a.ts", old_string: "same", new_string: "same" }, "new_string"],
    [{ path: "a.ts", old_string: "x" }, "new_string"],
    [{ path: "a.ts", old_string: "x", new_string: "y", replace_all: true }, "replace_all"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "a.ts"), "same x\n");
    const result = await edit(ws, args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it.each([["../x.ts"], [".git/config"], ["id_ed25519"]])("denies editing %s", async (path) => {
    const ws = await tempWorkspace();
    const ctx = callContext(tool, ws);
    const args = { path, old_string: "a", new_string: "b" };
    expect(tool.checkPermissions(args, ctx)).toMatchObject({ behavior: "deny" });
    expect(await invokeTool(tool, args, ctx)).toMatchObject({ success: false, errorKind: "denied" });
  });

  it.each([
    ["aaaa", "aa", [0, 2]],
    ["abcabc", "abc", [0, 3]],
    ["abc", "x", []],
  ])("finds the non-overlapping occurrences of %s in %s", (text, needle, at) => {
    expect(findOccurrences(text, needle)).toEqual(at);
  });
});
