import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import type { ToolExecutionContext } from "../../catalog/index.js";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { callContext, eventually, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createProcessTool } from "./process.js";
import { isAlive } from "./process-group.js";
import { processToolTestSetup } from "./process-test-setup.fixture.js";

const { supervisor, toolOptions } = processToolTestSetup(
  fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
);
const tool = createProcessTool(toolOptions());

async function call(ctx: ToolExecutionContext, args: Record<string, unknown>, t = tool) {
  return invokeTool(t, args, ctx);
}

async function runContext() {
  return callContext(tool, await tempWorkspace());
}

async function start(ctx: ToolExecutionContext, command: string) {
  const result = await call(ctx, { action: "start", command });
  expect(result.success).toBe(true);
  return (result as { data: { id: string; pid: number } }).data;
}

describe("process", () => {
  it("starts a background process, feeds its stdin and reads its output and exit", async () => {
    const ctx = await runContext();
    const { id } = await start(ctx, 'echo ready; read line; echo "got $line"; exit 5');
    expect(
      await eventually(async () => (await call(ctx, { action: "read", id })).output.startsWith("ready\n")),
    ).toBe(true);
    expect((await call(ctx, { action: "status", id })).output).toMatch(/^p\d+ \(pid \d+\): running;/);
    expect(await call(ctx, { action: "write", id, input: "hello\n" })).toMatchObject({ success: true });
    expect(
      await eventually(async () =>
        (await call(ctx, { action: "status", id })).output.includes("exited with code 5"),
      ),
    ).toBe(true);
    const read = await call(ctx, { action: "read", id });
    expect(read.output).toBe("ready\ngot hello\n[chars 0-16 of 16; no more output yet; exited with code 5]");
    expect(await call(ctx, { action: "write", id, input: "late" })).toMatchObject({
      success: false,
      errorKind: "business",
    });
  });

  it("pages output at most 8,000 chars a read", async () => {
    const ctx = await runContext();
    const { id } = await start(ctx, "head -c 20000 /dev/zero | tr '\\0' y");
    expect(
      await eventually(async () => (await call(ctx, { action: "status", id })).output.includes("exited")),
    ).toBe(true);
    const pages: number[] = [];
    let offset = 0;
    for (let i = 0; i < 4 && offset < 20_000; i++) {
      const page = await call(ctx, { action: "read", id, offset });
      const data = (page as { data: { text: string; next: number } }).data;
      pages.push(data.text.length);
      offset = data.next;
    }
    expect(pages).toEqual([8000, 8000, 4000]);
  });

  it("signals and stops a process's whole group", async () => {
    const ctx = await runContext();
    const { id, pid } = await start(ctx, "sleep 30");
    expect(await call(ctx, { action: "signal", id, signal: "SIGTERM" })).toMatchObject({ success: true });
    expect(
      await eventually(async () =>
        (await call(ctx, { action: "status", id })).output.includes("killed by SIGTERM"),
      ),
    ).toBe(true);
    expect(isAlive(pid)).toBe(false);
    const second = await start(ctx, "trap '' TERM; sleep 30");
    const stopped = await call(ctx, { action: "stop", id: second.id });
    expect(stopped.output).toMatch(/Stopped p\d+: killed by SIG(TERM|KILL)/);
    expect(isAlive(second.pid)).toBe(false);
  });

  it("shows a run only its own processes", async () => {
    const mine = await runContext();
    const theirs = await runContext();
    const { id } = await start(mine, "sleep 30");
    expect(await call(theirs, { action: "status", id })).toMatchObject({
      success: false,
      errorKind: "business",
    });
    expect(await call(theirs, { action: "stop", id })).toMatchObject({ success: false });
    expect((await call(theirs, { action: "list" })).output).toBe("No processes in this run.");
    expect((await call(mine, { action: "list" })).output).toContain(`${id} (pid`);
    await supervisor.stopAllForRun(mine.executionId);
  });

  it("refuses to start more processes than a run may have", async () => {
    const limited = createProcessTool(toolOptions({ limits: { processMaxPerRun: 2 } }));
    const ctx = callContext(limited, await tempWorkspace());
    await call(ctx, { action: "start", command: "sleep 30" }, limited);
    await call(ctx, { action: "start", command: "sleep 30" }, limited);
    const third = await call(ctx, { action: "start", command: "sleep 30" }, limited);
    expect(third).toMatchObject({ success: false, errorKind: "business" });
    expect(!third.success && third.error).toContain("the limit is 2");
    expect(await supervisor.stopAllForRun(ctx.executionId)).toBe(2);
  });

  it.each([
    [{}, "action"],
    [{ action: "launch" }, "action"],
    [{ action: "start" }, "command"],
    [{ action: "read" }, "id"],
    [{ action: "write", id: "p1" }, "input"],
    [{ action: "signal", id: "p1", signal: "SIGSTOP" }, "signal"],
    [{ action: "read", id: "p1", max_chars: 9000 }, "max_chars"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const result = await call(await runContext(), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it("denies starting a process outside the workspace", async () => {
    const ctx = await runContext();
    const args = { action: "start" as const, command: "pwd", cwd: "/etc" };
    expect(tool.checkPermissions(args, ctx)).toMatchObject({ behavior: "deny" });
    expect(await call(ctx, args)).toMatchObject({ success: false, errorKind: "denied" });
    expect(supervisor.listBackground(ctx.executionId)).toEqual([]);
  });

  it.each([
    ["start", false, true],
    ["write", false, true],
    ["signal", false, false],
    ["stop", false, false],
    ["status", true, false],
    ["list", true, false],
    ["read", true, false],
  ] as const)("treats %s as read-only=%s, destructive=%s", (action, readOnly, destructive) => {
    expect(tool.isReadOnly({ action })).toBe(readOnly);
    expect(tool.isConcurrencySafe({ action })).toBe(readOnly);
    expect(tool.isDestructive({ action })).toBe(destructive);
  });
});
