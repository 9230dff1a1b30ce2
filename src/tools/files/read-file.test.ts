import { mkdir, symlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import { callContext, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createReadFileTool } from "./read-file.js";

const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
const tool = createReadFileTool({ pathFence: fence, limits: DEFAULT_BUILTIN_LIMITS });

async function read(workspace: string, args: Record<string, unknown>) {
  return invokeTool(tool, args, callContext(tool, workspace));
}

describe("read_file", () => {
  it("returns a text file's lines numbered from 1", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "a.txt"), "alpha\nbeta\ngamma\n");
    const result = await read(ws, { path: "a.txt" });
    expect(result).toMatchObject({ success: true, output: "1\talpha\n2\tbeta\n3\tgamma" });
  });

  it("returns a line range and says where to continue", async () => {
    const ws = await tempWorkspace();
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");
    await writeFile(join(ws, "long.txt"), lines);
    const result = await read(ws, { path: "long.txt", offset: 9, limit: 2 });
    expect(result.success).toBe(true);
    expect(result.output).toBe(" 9\tline 9\n10\tline 10\n[lines 9-10 of 12; continue with offset 11]");
    expect(result.success && result.data).toMatchObject({ totalLines: 12, startLine: 9, endLine: 10 });
  });

  it("reports an offset past the end as a business failure", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "a.txt"), "one\n");
    const result = await read(ws, { path: "a.txt", offset: 5 });
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    expect(!result.success && result.error).toContain("has 1 lines");
  });

  it.each([
    ["a NUL byte", Buffer.from([0x61, 0x00, 0x62])],
    ["invalid UTF-8", Buffer.from([0xff, 0xfe, 0x41, 0xc3])],
  ])("refuses a binary file (%s)", async (_label, bytes) => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "bin.dat"), bytes);
    const result = await read(ws, { path: "bin.dat" });
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    expect(!result.success && result.error).toContain("binary file");
  });

  it("refuses a file over the size cap without reading it", async () => {
    const ws = await tempWorkspace();
    await writeFile(join(ws, "big.txt"), "x".repeat(2048));
    const small = createReadFileTool({
      pathFence: fence,
      limits: { ...DEFAULT_BUILTIN_LIMITS, fileMaxBytes: 1024 },
    });
    const result = await invokeTool(small, { path: "big.txt" }, callContext(small, ws));
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    expect(!result.success && result.error).toContain("over the 1024-byte limit");
  });

  it("says when the file is missing or a directory", async () => {
    const ws = await tempWorkspace();
    await mkdir(join(ws, "dir"));
    expect(await read(ws, { path: "nope.txt" })).toMatchObject({ success: false, errorKind: "business" });
    const dir = await read(ws, { path: "dir" });
    expect(!dir.success && dir.error).toContain("not a regular file");
  });

  it.each([
    [{ path: "" }, "path"],
    [{ path: "a.txt", offset: 0 }, "offset"],
    [{ path: "a.txt", limit: "ten" }, "limit"],
    [{ path: "a.txt", extra: true }, "extra"],
    [{}, "path"],
  ])("rejects bad arguments %j naming the field %s", async (args, field) => {
    const ws = await tempWorkspace();
    const result = await read(ws, args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    const fields = (result as { data: { fields: { field: string }[] } }).data.fields.map((f) => f.field);
    expect(fields).toContain(field);
  });

  it.each([["../outside.txt"], ["/etc/hostname"], ["link/secret.txt"]])(
    "denies %s, which leaves the workspace, in checkPermissions and in execute",
    async (path) => {
      const ws = await tempWorkspace();
      const outside = await tempWorkspace("outside");
      await writeFile(join(outside, "secret.txt"), "s3cret");
      await symlink(outside, join(ws, "link"));
      const ctx = callContext(tool, ws);
      expect(tool.checkPermissions({ path }, ctx)).toMatchObject({ behavior: "deny" });
      const result = await invokeTool(tool, { path }, ctx);
      expect(result).toMatchObject({ success: false, errorKind: "denied" });
      expect(result.output).toBe("");
    },
  );

  it.each([[".git/config"], [".env"], ["keys/id_rsa"]])(
    "asks a person before reading the protected path %s",
    async (path) => {
      const ws = await tempWorkspace();
      const ctx = callContext(tool, ws);
      expect(tool.checkPermissions({ path }, ctx)).toMatchObject({ behavior: "ask" });
      expect(tool.checkPermissions({ path: "src/index.ts" }, ctx)).toEqual({ behavior: "passthrough" });
    },
  );

  it("reads outside the workspace only when restrict_to_workspace is off", async () => {
    const ws = await tempWorkspace();
    const outside = await tempWorkspace("outside");
    await writeFile(join(outside, "note.txt"), "hello\n");
    const open = createReadFileTool({
      pathFence: fenceFactory(createPathFence, {
        homeDir: homedir(),
        fs: nodeFsView(),
        restrictToWorkspace: false,
      }),
      limits: DEFAULT_BUILTIN_LIMITS,
    });
    const result = await invokeTool(
      open,
      { path: join(outside, "note.txt") },
      callContext(open, ws, { workspaceOnly: false }),
    );
    expect(result).toMatchObject({ success: true, output: "1\thello" });
  });

  it("reads outside the workspace not at all when the session mode fences the run, whatever restrict_to_workspace says", async () => {
    const ws = await tempWorkspace();
    const outside = await tempWorkspace("outside");
    await writeFile(join(outside, "note.txt"), "hello\n");
    const open = createReadFileTool({
      pathFence: fenceFactory(createPathFence, {
        homeDir: homedir(),
        fs: nodeFsView(),
        restrictToWorkspace: false,
      }),
      limits: DEFAULT_BUILTIN_LIMITS,
    });
    const ctx = callContext(open, ws, { workspaceOnly: true });
    expect(await invokeTool(open, { path: join(outside, "note.txt") }, ctx)).toMatchObject({
      success: false,
      errorKind: "denied",
    });
    expect(open.checkPermissions({ path: "/etc/shadow" }, ctx)).toMatchObject({ behavior: "deny" });
  });

  it("declares itself read-only, concurrency-safe and idempotent", () => {
    expect(tool.isReadOnly({ path: "a" })).toBe(true);
    expect(tool.isConcurrencySafe({ path: "a" })).toBe(true);
    expect(tool.isDestructive({ path: "a" })).toBe(false);
    expect(tool.idempotent).toBe(true);
    expect(tool.readinessDetail().ready).toBe(true);
  });
});
