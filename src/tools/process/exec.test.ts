import { mkdir, readFile, symlink } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import {
  callContext,
  eventually,
  fenceFactory,
  processToolOptions,
  tempWorkspace,
} from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createExecTool } from "./exec.js";
import { isAlive } from "./process-group.js";
import { processToolTestSetup } from "./process-test-setup.fixture.js";

const { supervisor, toolOptions } = processToolTestSetup(
  fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
);
const tool = createExecTool(toolOptions());

async function exec(ws: string, args: Record<string, unknown>, t = tool) {
  return invokeTool(t, args, callContext(t, ws));
}

describe("exec", () => {
  it("runs a shell command in the workspace and returns stdout and stderr", async () => {
    const ws = await tempWorkspace();
    const result = await exec(ws, { command: "pwd; echo to-stderr >&2" });
    expect(result).toMatchObject({ success: true, output: `${ws}\nto-stderr\n` });
    expect(result.success && result.data).toMatchObject({ exitCode: 0, timedOut: false });
  });

  it("reports a non-zero exit as a business failure with the output", async () => {
    const ws = await tempWorkspace();
    const result = await exec(ws, { command: "echo partial; exit 3" });
    expect(result).toMatchObject({
      success: false,
      errorKind: "business",
      error: "the command exited with code 3",
      output: "partial\n",
    });
  });

  it("passes stdin and runs in a subdirectory", async () => {
    const ws = await tempWorkspace();
    await mkdir(join(ws, "sub"));
    const result = await exec(ws, { command: "cat; pwd", stdin: "hello\n", cwd: "sub" });
    expect(result.output).toBe(`hello\n${ws}/sub\n`);
  });

  it("gives the process only allow-listed variables, never secrets", async () => {
    const ws = await tempWorkspace();
    const secretive = createExecTool(
      toolOptions({
        env: {
          PATH: process.env.PATH,
          HOME: "/home/ann",
          LANG: "C.UTF-8",
          REDIS_URL: "redis://:pw@db:6379",
          OPENAI_API_KEY: "sk-live",
          GITHUB_TOKEN: "ghp_x",
          DB_PASSWORD: "hunter2",
          AWS_SECRET_ACCESS_KEY: "aws",
          ECHO_RUNNER_API_TOKEN: "t",
        },
      }),
    );
    const result = await exec(ws, { command: "env | sort" }, secretive);
    const names = result.output
      .trim()
      .split("\n")
      .map((line) => line.split("=")[0])
      // bash itself exports SHLVL and `_` to its children.
      .filter((name) => name !== "SHLVL" && name !== "_");
    expect(names).toEqual(["HOME", "LANG", "PATH", "PWD"]);
    expect(result.output).not.toMatch(/hunter2|sk-live|ghp_x|redis:/);
  });

  it("kills the whole process group at the timeout, children included", async () => {
    const ws = await tempWorkspace();
    const started = Date.now();
    const result = await exec(ws, {
      command: "sleep 30 & echo $! > child.pid; trap '' TERM; sleep 30",
      timeout_seconds: 1,
    });
    expect(result).toMatchObject({ success: false, errorKind: "timeout" });
    expect(Date.now() - started).toBeLessThan(5000);
    const child = Number(await readFile(join(ws, "child.pid"), "utf8"));
    expect(await eventually(() => !isAlive(child))).toBe(true);
  });

  it("does not wait for, and does not leave behind, a process the command put in the background", async () => {
    const ws = await tempWorkspace();
    const started = Date.now();
    const result = await exec(ws, { command: "sleep 30 & echo $!" });
    expect(result.success).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await eventually(() => !isAlive(Number(result.output.trim())))).toBe(true);
  });

  it("caps the output it keeps and says how much was dropped", async () => {
    const ws = await tempWorkspace();
    const capped = createExecTool(toolOptions({ limits: { execOutputMaxBytes: 1000 } }));
    const result = await exec(ws, { command: "head -c 50000 /dev/zero | tr '\\0' x" }, capped);
    expect(result.success).toBe(true);
    expect(result.output).toBe(`${"x".repeat(1000)}\n[49000 more bytes of output dropped]`);
  });

  it("stops a running command when its run's processes are stopped", async () => {
    const ws = await tempWorkspace();
    const ctx = callContext(tool, ws);
    const pending = invokeTool(tool, { command: "sleep 30" }, ctx);
    expect(await eventually(() => supervisor.liveCount(ctx.executionId) === 1)).toBe(true);
    expect(await supervisor.stopAllForRun(ctx.executionId)).toBe(1);
    expect(await pending).toMatchObject({ success: false, error: "the command was killed by SIGTERM" });
  });

  it.each([
    [{ command: "" }, "command"],
    [{ command: "ls", timeout_seconds: 0 }, "timeout_seconds"],
    [{ command: "ls", timeout_seconds: 601 }, "timeout_seconds"],
    [{ command: "ls", env: { A: "1" } }, "env"],
    [{}, "command"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const ws = await tempWorkspace();
    const result = await exec(ws, args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it.each([["/tmp"], [".."], ["out"]])("denies the cwd %s outside the workspace", async (cwd) => {
    const ws = await tempWorkspace();
    await symlink(await tempWorkspace("outside"), join(ws, "out"));
    const ctx = callContext(tool, ws);
    expect(tool.checkPermissions({ command: "ls", cwd }, ctx)).toMatchObject({ behavior: "deny" });
    expect(await invokeTool(tool, { command: "touch x", cwd }, ctx)).toMatchObject({
      success: false,
      errorKind: "denied",
    });
  });

  it("keeps processes inside the workspace even when restrict_to_workspace is off", async () => {
    const ws = await tempWorkspace();
    const open = fenceFactory(createPathFence, {
      homeDir: homedir(),
      fs: nodeFsView(),
      restrictToWorkspace: false,
    });
    const loose = createExecTool(processToolOptions(open, supervisor));
    expect(await exec(ws, { command: "pwd", cwd: "/tmp" }, loose)).toMatchObject({ errorKind: "denied" });
  });

  it("is not ready, and does not run, unless tools.exec.host is local", async () => {
    const ws = await tempWorkspace();
    const sandboxed = createExecTool(toolOptions({ execHost: "sandbox" }));
    expect(sandboxed.readinessDetail()).toMatchObject({ ready: false });
    expect(sandboxed.readinessDetail().detail).toContain("tools.exec.host is sandbox");
    expect(await exec(ws, { command: "touch ran" }, sandboxed)).toMatchObject({ errorKind: "not_ready" });
  });

  it("declares exec risk: not read-only, destructive, not concurrency-safe, not idempotent", () => {
    expect(tool.riskLevel).toBe("exec");
    expect(tool.isReadOnly({ command: "ls" })).toBe(false);
    expect(tool.isDestructive({ command: "ls" })).toBe(true);
    expect(tool.isConcurrencySafe({ command: "ls" })).toBe(false);
    expect(tool.idempotent).toBe(false);
    expect(tool.timeoutSeconds).toBeGreaterThan(600);
  });
});
