import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import { callContext, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createWriteFileTool } from "./write-file.js";

const base = { homeDir: homedir(), fs: nodeFsView() };
const tool = createWriteFileTool({
  pathFence: fenceFactory(createPathFence, base),
  limits: DEFAULT_BUILTIN_LIMITS,
});

async function write(ws: string, args: Record<string, unknown>, t = tool) {
  return invokeTool(t, args, callContext(t, ws));
}

describe("write_file", () => {
  it("creates a file and its missing parent directories", async () => {
    const ws = await tempWorkspace();
    const result = await write(ws, { path: "a/b/new.txt", content: "héllo\n" });
    expect(result).toMatchObject({ success: true, output: "Created a/b/new.txt (7 bytes)" });
    expect(await readFile(join(ws, "a/b/new.txt"), "utf8")).toBe("héllo\n");
  });

  it("replaces a file by rename (a new inode), keeps its mode and leaves no temp file", async () => {
    const ws = await tempWorkspace();
    const path = join(ws, "f.txt");
    await writeFile(path, "old");
    await chmod(path, 0o600);
    const before = await stat(path);
    const result = await write(ws, { path: "f.txt", content: "new" });
    expect(result.output).toBe("Replaced f.txt (3 bytes)");
    const after = await stat(path);
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o600);
    expect(await readFile(path, "utf8")).toBe("new");
    expect(await readdir(ws)).toEqual(["f.txt"]);
  });

  it("is a no-op when replayed with the same content: nothing is written", async () => {
    const ws = await tempWorkspace();
    const first = await write(ws, { path: "same.txt", content: "v1" });
    expect(first.success && first.data).toMatchObject({ outcome: "created" });
    const written = await stat(join(ws, "same.txt"));
    const replay = await write(ws, { path: "same.txt", content: "v1" });
    expect(replay).toMatchObject({ success: true, data: { outcome: "unchanged" } });
    const after = await stat(join(ws, "same.txt"));
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    expect(tool.idempotent).toBe(true);
  });

  it("writes through a link inside the workspace to the link's target", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "target.txt"), "old");
    await symlink("target.txt", join(ws, "alias.txt"));
    await write(ws, { path: "alias.txt", content: "via link" });
    expect(await readFile(join(ws, "target.txt"), "utf8")).toBe("via link");
  });

  it("refuses to replace a directory", async () => {
    const ws = await tempWorkspace();
    await mkdir(join(ws, "d"));
    expect(await write(ws, { path: "d", content: "x" })).toMatchObject({
      success: false,
      errorKind: "business",
    });
  });

  it.each([
    [{ path: "a.txt" }, "content"],
    [{ content: "x" }, "path"],
    [{ path: "a.txt", content: 5 }, "content"],
    [{ path: "a.txt", content: "x", mode: "append" }, "mode"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const ws = await tempWorkspace();
    const result = await write(ws, args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it("rejects content over the size limit naming content", async () => {
    const ws = await tempWorkspace();
    const small = createWriteFileTool({
      pathFence: fenceFactory(createPathFence, base),
      limits: { ...DEFAULT_BUILTIN_LIMITS, writeMaxChars: 10 },
    });
    const result = await write(ws, { path: "a.txt", content: "x".repeat(11) }, small);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect((result as { data: unknown }).data).toEqual({
      fields: [{ field: "content", problem: "must be at most 10 chars" }],
    });
  });

  it.each([
    ["../escape.txt", "path.outside-workspace"],
    ["/etc/passwd", "path.outside-workspace"],
    [".git/hooks/pre-commit", "path.protected"],
    [".env", "path.protected"],
    ["runner-data/state.json", "path.protected"],
  ])("denies writing %s (%s) in checkPermissions and in execute", async (path, rule) => {
    const ws = await tempWorkspace();
    const guarded = createWriteFileTool({
      pathFence: fenceFactory(createPathFence, { ...base, protectedPaths: [join(ws, "runner-data")] }),
      limits: DEFAULT_BUILTIN_LIMITS,
    });
    const ctx = callContext(guarded, ws);
    expect(guarded.checkPermissions({ path, content: "x" }, ctx)).toMatchObject({ behavior: "deny" });
    const result = await invokeTool(guarded, { path, content: "x" }, ctx);
    expect(result).toMatchObject({ success: false, errorKind: "denied", data: { rule } });
    expect(await readdir(ws)).toEqual([]);
  });

  it("denies writes outside safe_write_root even inside the workspace", async () => {
    const ws = await tempWorkspace();
    await mkdir(join(ws, "out"));
    const rooted = createWriteFileTool({
      pathFence: fenceFactory(createPathFence, { ...base, safeWriteRoot: join(ws, "out") }),
      limits: DEFAULT_BUILTIN_LIMITS,
    });
    expect(await write(ws, { path: "out/ok.txt", content: "x" }, rooted)).toMatchObject({ success: true });
    expect(await write(ws, { path: "elsewhere.txt", content: "x" }, rooted)).toMatchObject({
      errorKind: "denied",
      data: { rule: "path.outside-write-root" },
    });
  });

  it("declares write risk, not destructive, not concurrency-safe", () => {
    expect(tool.riskLevel).toBe("write");
    expect(tool.isReadOnly({ path: "a", content: "" })).toBe(false);
    expect(tool.isDestructive({ path: "a", content: "" })).toBe(false);
    expect(tool.isConcurrencySafe({ path: "a", content: "" })).toBe(false);
  });
});
