import { mkdir, symlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import { callContext, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createListDirTool, formatSize } from "./list-dir.js";

const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
const tool = createListDirTool({ pathFence: fence, limits: DEFAULT_BUILTIN_LIMITS });

async function workspaceWithTree(): Promise<string> {
  const ws = await tempWorkspace();
  await mkdir(join(ws, "src/lib"), { recursive: true });
  await mkdir(join(ws, ".git/objects"), { recursive: true });
  await mkdir(join(ws, "node_modules/pkg"), { recursive: true });
  await writeFile(join(ws, "README.md"), "x".repeat(1536));
  await writeFile(join(ws, "src/index.ts"), "export {};\n");
  await writeFile(join(ws, "src/lib/deep.ts"), "");
  await symlink("/etc", join(ws, "etc-link"));
  return ws;
}

describe("list_dir", () => {
  it("lists the workspace's entries sorted, with kinds and sizes", async () => {
    const ws = await workspaceWithTree();
    const result = await invokeTool(tool, {}, callContext(tool, ws));
    expect(result).toMatchObject({
      success: true,
      output: [".git/", "README.md  (1.5 KiB)", "etc-link -> /etc", "node_modules/", "src/"].join("\n"),
    });
  });

  it("lists deeper levels but never descends into .git, node_modules or links", async () => {
    const ws = await workspaceWithTree();
    const result = await invokeTool(tool, { depth: 3 }, callContext(tool, ws));
    expect(result.output.split("\n")).toEqual([
      ".git/",
      "README.md  (1.5 KiB)",
      "etc-link -> /etc",
      "node_modules/",
      "src/",
      "src/index.ts  (11 B)",
      "src/lib/",
      "src/lib/deep.ts  (0 B)",
    ]);
  });

  it("caps the number of entries and says how many were left out", async () => {
    const ws = await tempWorkspace();
    for (let i = 0; i < 7; i++) await writeFile(join(ws, `f${i}`), "");
    const capped = createListDirTool({
      pathFence: fence,
      limits: { ...DEFAULT_BUILTIN_LIMITS, listMaxEntries: 5 },
    });
    const result = await invokeTool(capped, {}, callContext(capped, ws));
    const lines = result.output.split("\n");
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe("[2 more entries not shown; list a subdirectory]");
  });

  it("reports a missing path and a file as business failures", async () => {
    const ws = await workspaceWithTree();
    const missing = await invokeTool(tool, { path: "nope" }, callContext(tool, ws));
    expect(missing).toMatchObject({ success: false, errorKind: "business" });
    const file = await invokeTool(tool, { path: "README.md" }, callContext(tool, ws));
    expect(!file.success && file.error).toContain("not a directory");
  });

  it.each([
    [{ depth: 0 }, "depth"],
    [{ depth: 6 }, "depth"],
    [{ path: "" }, "path"],
    [{ recursive: true }, "recursive"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const ws = await tempWorkspace();
    const result = await invokeTool(tool, args, callContext(tool, ws));
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it.each([["etc-link"], [".."], ["/"]])("denies listing %s, outside the workspace", async (path) => {
    const ws = await workspaceWithTree();
    const ctx = callContext(tool, ws);
    expect(tool.checkPermissions({ path }, ctx)).toMatchObject({ behavior: "deny" });
    expect(await invokeTool(tool, { path }, ctx)).toMatchObject({ success: false, errorKind: "denied" });
  });

  it("asks before listing inside .git", async () => {
    const ws = await workspaceWithTree();
    expect(tool.checkPermissions({ path: ".git/objects" }, callContext(tool, ws))).toMatchObject({
      behavior: "ask",
    });
  });

  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1.0 KiB"],
    [5 * 1024 * 1024, "5.0 MiB"],
    [300 * 1024 * 1024, "300 MiB"],
  ])("formats %d bytes as %s", (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });
});
