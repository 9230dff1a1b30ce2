import { mkdir, symlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { type BuiltinToolLimits, DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import { callContext, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createSearchFilesTool } from "./search-files.js";

const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
const tool = createSearchFilesTool({ pathFence: fence, limits: DEFAULT_BUILTIN_LIMITS });

function toolWith(limits: Partial<BuiltinToolLimits>) {
  return createSearchFilesTool({ pathFence: fence, limits: { ...DEFAULT_BUILTIN_LIMITS, ...limits } });
}

async function project(): Promise<string> {
  const ws = await tempWorkspace();
  await mkdir(join(ws, "src/util"), { recursive: true });
  await mkdir(join(ws, ".git"), { recursive: true });
  await mkdir(join(ws, "node_modules/dep"), { recursive: true });
  await writeFile(join(ws, "src/a.ts"), "const token = 1;\nexport const TODO = 'x';\n");
  await writeFile(join(ws, "src/util/b.ts"), "// TODO: tidy\nfunction b() {}\n");
  await writeFile(join(ws, "notes.md"), "todo: write docs\n");
  await writeFile(join(ws, ".git/config"), "TODO in git\n");
  await writeFile(join(ws, "node_modules/dep/index.ts"), "// TODO in a dependency\n");
  return ws;
}

async function run(ws: string, args: Record<string, unknown>, t = tool) {
  return invokeTool(t, args, callContext(t, ws));
}

describe("search_files", () => {
  it("returns matching lines as path:line: text, in name order, skipping .git and node_modules", async () => {
    const ws = await project();
    const result = await run(ws, { pattern: "TODO" });
    expect(result.success).toBe(true);
    expect(result.output.split("\n")).toEqual([
      "src/a.ts:2: export const TODO = 'x';",
      "src/util/b.ts:1: // TODO: tidy",
      "[2 matching lines in 2 files (3 searched)]",
    ]);
  });

  it("matches a glob without a slash at any depth, and a glob with one from the search path", async () => {
    const ws = await project();
    expect((await run(ws, { glob: "*.ts" })).output.split("\n")).toEqual([
      "src/a.ts",
      "src/util/b.ts",
      "[2 files]",
    ]);
    expect((await run(ws, { glob: "util/*.ts", path: "src" })).output.split("\n")).toEqual([
      "src/util/b.ts",
      "[1 file]",
    ]);
  });

  it("ignores case and treats a literal pattern as text when asked", async () => {
    const ws = await project();
    const ci = await run(ws, { pattern: "todo", case_insensitive: true, glob: "*.md" });
    expect(ci.output.split("\n")[0]).toBe("notes.md:1: todo: write docs");
    await writeFile(join(ws, "re.txt"), "a+b\naab\n");
    const literal = await run(ws, { pattern: "a+b", literal: true, glob: "re.txt" });
    expect(literal.output.split("\n")[0]).toBe("re.txt:1: a+b");
    const regex = await run(ws, { pattern: "a+b", glob: "re.txt" });
    expect(regex.output.split("\n")[0]).toBe("re.txt:2: aab");
  });

  it("skips binary, large and protected files and says so", async () => {
    const ws = await project();
    await writeFile(join(ws, "blob.bin"), Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0x00]));
    await writeFile(join(ws, "big.txt"), `TODO\n${"x".repeat(5000)}`);
    await writeFile(join(ws, ".env"), "TODO_SECRET=hunter2\n");
    const result = await run(ws, { pattern: "TODO|hunter2" }, toolWith({ searchMaxFileBytes: 4096 }));
    expect(result.output).not.toContain("hunter2");
    expect(result.output).not.toContain("blob.bin");
    expect(result.output).toContain("1 large skipped; 1 binary skipped; 1 protected skipped");
  });

  it("stops at max_results and at the file cap", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "many.txt"), "hit\n".repeat(50));
    const capped = await run(ws, { pattern: "hit", max_results: 3 });
    expect(capped.output.split("\n")).toHaveLength(4);
    expect(capped.output).toContain("stopped at 3 results");
    for (let i = 0; i < 5; i++) await writeFile(join(ws, `f${i}.txt`), "x\n");
    const walk = await run(ws, { glob: "*.txt" }, toolWith({ searchMaxFiles: 2 }));
    expect(walk.output).toContain("stopped after 2 files");
  });

  it("matches a catastrophic-backtracking pattern in linear time", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "evil.txt"), `${"a".repeat(50_000)}!\n`);
    const started = performance.now();
    const result = await run(ws, { pattern: "^(a+)+$" });
    expect(result).toMatchObject({ success: true });
    expect(result.output).toContain("0 matching lines");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it.each([
    [{ pattern: "(unclosed" }, "pattern"],
    [{ pattern: "" }, "pattern"],
    [{ max_results: 0 }, "max_results"],
    [{ glob: "src/../../*" }, "glob"],
    [{ literal: "yes" }, "literal"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const ws = await project();
    const result = await run(ws, args);
    expect(result.success).toBe(false);
    expect(["validation", "denied"]).toContain(!result.success && result.errorKind);
    expect(!result.success && result.error).toContain(field === "glob" ? "glob" : field);
  });

  it.each([
    [{ glob: "../*" }],
    [{ glob: "**/../../etc/*" }],
    [{ path: ".." }],
    [{ path: "/etc", pattern: "root" }],
  ])("denies %j, which would search outside the workspace", async (args) => {
    const ws = await project();
    const ctx = callContext(tool, ws);
    expect(tool.checkPermissions(args, ctx)).toMatchObject({ behavior: "deny" });
    expect(await invokeTool(tool, args, ctx)).toMatchObject({ success: false, errorKind: "denied" });
  });

  it("never reads through a link that leads outside, and never descends a directory link", async () => {
    const ws = await project();
    const outside = await tempWorkspace("outside");
    await writeFile(join(outside, "secret.txt"), "TODO outside\n");
    await symlink(join(outside, "secret.txt"), join(ws, "leak.txt"));
    await symlink(outside, join(ws, "leakdir"));
    await writeFile(join(ws, "inside.txt"), "TODO inside\n");
    await symlink(join(ws, "inside.txt"), join(ws, "alias.txt"));
    const result = await run(ws, { pattern: "TODO" });
    expect(result.output).not.toContain("TODO outside");
    expect(result.output).toContain("alias.txt:1: TODO inside");
    expect(result.output).toContain("2 links leading outside skipped");
  });

  it("is read-only, concurrency-safe and idempotent", () => {
    expect(tool.isReadOnly({})).toBe(true);
    expect(tool.isConcurrencySafe({ pattern: "x" })).toBe(true);
    expect(tool.idempotent).toBe(true);
  });
});
