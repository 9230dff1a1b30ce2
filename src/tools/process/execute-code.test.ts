import { mkdir, readdir, readFile, symlink } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { callContext, eventually, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { locateBash } from "./bash-shell.js";
import { createExecuteCodeTool, findInterpreters } from "./execute-code.js";
import { isAlive } from "./process-group.js";
import { processToolTestSetup } from "./process-test-setup.fixture.js";

const { toolOptions } = processToolTestSetup(
  fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
);

async function codeTool(env?: NodeJS.ProcessEnv) {
  const tempDir = await tempWorkspace("code-tmp");
  return {
    tempDir,
    tool: createExecuteCodeTool({ ...toolOptions(env ? { env } : {}), tempDir }),
  };
}

describe("execute_code", () => {
  it.each([
    ["node", "console.log('hi from', typeof process.version); console.error('e');"],
    ["python3", "import sys\nprint('hi from', type(sys.version).__name__)\nprint('e', file=sys.stderr)"],
    ["bash", 'echo hi from "$(echo string)"; echo e >&2'],
  ])("runs %s code in the workspace and returns its output", async (language, code) => {
    const ws = await tempWorkspace();
    const { tool } = await codeTool();
    const result = await invokeTool(tool, { language, code }, callContext(tool, ws));
    expect(result).toMatchObject({ success: true });
    expect(result.output.split("\n").sort().join("\n")).toMatch(/^\ne\nhi from str(ing)?$/);
  });

  it("runs the code from a private temp file, never from the command line, and removes it", async () => {
    const ws = await tempWorkspace();
    const { tool, tempDir } = await codeTool();
    const code =
      "import { statSync } from 'node:fs'; console.log(JSON.stringify({ argv: process.argv.slice(1), cwd: process.cwd(), mode: (statSync(process.argv[1]).mode & 0o777).toString(8) }));";
    const result = await invokeTool(tool, { language: "node", code }, callContext(tool, ws));
    const seen = JSON.parse(result.output) as { argv: string[]; cwd: string; mode: string };
    expect(seen.argv).toHaveLength(1);
    expect(seen.argv[0]).toMatch(/\/echo-code-[^/]+\/main\.mjs$/);
    expect(dirname(dirname(seen.argv[0] as string))).toBe(tempDir);
    expect(seen.cwd).toBe(ws);
    expect(seen.mode).toBe("600");
    expect(await readdir(tempDir)).toEqual([]);
  });

  it("passes stdin and reports a non-zero exit as a business failure", async () => {
    const ws = await tempWorkspace();
    const { tool } = await codeTool();
    const result = await invokeTool(
      tool,
      {
        language: "python3",
        code: "import sys\nprint(sys.stdin.read().upper())\nsys.exit(4)",
        stdin: "quiet",
      },
      callContext(tool, ws),
    );
    expect(result).toMatchObject({ success: false, errorKind: "business", output: "QUIET\n" });
    expect(!result.success && result.error).toBe("the command exited with code 4");
  });

  it("kills the program and its children at the timeout", async () => {
    const ws = await tempWorkspace();
    const { tool } = await codeTool();
    const result = await invokeTool(
      tool,
      {
        language: "bash",
        code: "sleep 30 &\necho $! > child.pid\ntrap '' TERM\nsleep 30",
        timeout_seconds: 1,
      },
      callContext(tool, ws),
    );
    expect(result).toMatchObject({ success: false, errorKind: "timeout" });
    const child = Number(await readFile(join(ws, "child.pid"), "utf8"));
    expect(await eventually(() => !isAlive(child))).toBe(true);
  });

  it("says which interpreters exist when a language is missing; bash is never looked up on PATH", async () => {
    const ws = await tempWorkspace();
    const nodeOnly = await tempWorkspace("bin");
    await symlink(process.execPath, join(nodeOnly, "node"));
    const { tool } = await codeTool({ PATH: nodeOnly });
    expect(tool.readinessDetail()).toEqual({ ready: true, detail: "ready (node, bash)" });
    const result = await invokeTool(tool, { language: "python3", code: "print(1)" }, callContext(tool, ws));
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    expect(!result.success && result.error).toBe(
      "python3 is not installed on this worker; available: node, bash",
    );
    // bash is the one bash-shell located in fixed root-owned directories, whatever PATH says.
    const empty = await codeTool({ PATH: "/nonexistent" });
    expect(empty.tool.readinessDetail()).toEqual({ ready: true, detail: "ready (bash)" });
    expect(
      await invokeTool(empty.tool, { language: "node", code: "1" }, callContext(empty.tool, ws)),
    ).toMatchObject({ errorKind: "business" });
  });

  it.each([
    [{ language: "ruby", code: "puts 1" }, "language"],
    [{ language: "node", code: "" }, "code"],
    [{ language: "node" }, "code"],
    [{ language: "node", code: "1", timeout_seconds: 10_000 }, "timeout_seconds"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const ws = await tempWorkspace();
    const { tool } = await codeTool();
    const result = await invokeTool(tool, args, callContext(tool, ws));
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it("denies a cwd outside the workspace", async () => {
    const ws = await tempWorkspace();
    await mkdir(join(ws, "in"));
    const { tool } = await codeTool();
    const ctx = callContext(tool, ws);
    expect(tool.checkPermissions({ language: "bash", code: "pwd", cwd: "/" }, ctx)).toMatchObject({
      behavior: "deny",
    });
    expect(await invokeTool(tool, { language: "bash", code: "pwd", cwd: "/" }, ctx)).toMatchObject({
      errorKind: "denied",
    });
    expect(await invokeTool(tool, { language: "bash", code: "pwd", cwd: "in" }, ctx)).toMatchObject({
      success: true,
      output: `${ws}/in\n`,
    });
  });

  it("finds interpreters only in absolute PATH entries", () => {
    expect(findInterpreters(`relative:${dirname(process.execPath)}`).node).toBe(
      join(dirname(process.execPath), "node"),
    );
    expect(findInterpreters(undefined)).toEqual({ bash: locateBash()?.path });
  });
});
