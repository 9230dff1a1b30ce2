import { beforeAll, describe, expect, it } from "vitest";
import type { ToolExecutionContext } from "../catalog/index.js";
import { createCommandGuard } from "../platform/index.js";
import { createToolExecutionContext } from "../tools/index.js";
import { type CallGuard, createCallGuard } from "./call-guard.js";
import { createExecPolicy, createPathFence } from "./index.js";
import { memoryFsView } from "./paths/index.js";

// What `process start` recorded for the run "run-1": p1 a shell, p2 python, p3 a plain filter.
const PROCESSES: Record<string, string> = { p1: "sh", p2: "python3", p3: "cat > out.txt", p4: "bash -i" };

let guard: CallGuard;
let ctx: ToolExecutionContext;
beforeAll(async () => {
  const execPolicy = createExecPolicy(await createCommandGuard(), {
    security: "full",
    ask: "on-miss",
    resolveBinary: (c) => (c.includes("/") ? c : `/usr/bin/${c}`),
  });
  guard = createCallGuard({
    execPolicy,
    resolver: { lookup: async () => [] } as never,
    pathFence: (ws) =>
      createPathFence({
        workspaceRoot: ws,
        restrictToWorkspace: true,
        homeDir: "/home/u",
        fs: memoryFsView({}),
      }),
    networkPolicy: "allow",
    allowedHosts: [],
    processCommand: (run, id) => (run === "run-1" ? PROCESSES[id] : undefined),
  });
  ctx = createToolExecutionContext({
    executionId: "run-1",
    traceId: "t",
    sessionKey: "s",
    userId: "u",
    agentId: "a",
    call: { toolName: "exec", callIndex: 0, params: {} },
    allowedTools: ["exec", "process"],
    channel: "cron",
    unattended: true,
    workspace: "/w",
  } as never);
});

const verdict = async (tool: string, args: Record<string, unknown>) =>
  (await guard.assess(tool, args, ctx))?.verdict ?? "none";

describe("every input that reaches a shell or interpreter is judged", () => {
  it.each([
    // exec stdin to a shell is a script.
    [{ command: "sh", stdin: "rm -rf /" }, "deny"],
    [{ command: "bash -s", stdin: "mkfs.ext4 /dev/sda" }, "deny"],
    [{ command: "cat | sh", stdin: "rm -rf ~" }, "deny"],
    [{ command: "sh", stdin: "rm -rf build" }, "ask"],
    // dash reads the input: bash-only constructs are read as dash reads them.
    [{ command: "sh", stdin: "[[ 1 || rm -rf / ]]" }, "deny"],
    // an interpreter runs its input as code: soft at least.
    [{ command: "python3", stdin: "import os; os.system('id')" }, "ask"],
    [{ command: "node -", stdin: "require('child_process')" }, "ask"],
    // input to a filter is data.
    [{ command: "wc -l", stdin: "rm -rf /" }, "allow"],
    [{ command: "grep -c x", stdin: "sh -c 'rm -rf /'" }, "allow"],
  ])("exec %j → %s", async (args, expected) => {
    expect(await verdict("exec", args)).toBe(expected);
  });

  it.each([
    [{ language: "bash", code: "sh", stdin: "rm -rf /" }, "deny"],
    [{ language: "bash", code: "source /dev/stdin", stdin: "rm -rf /" }, "deny"],
    [{ language: "bash", code: "wc -l", stdin: "rm -rf /" }, "allow"],
  ])("execute_code %j → %s", async (args, expected) => {
    expect(await verdict("execute_code", args)).toBe(expected);
  });

  it.each([
    [{ action: "start", command: "bash" }, "ask"],
    [{ action: "start", command: "python3" }, "ask"],
    [{ action: "start", command: "sh -s" }, "ask"],
    [{ action: "start", command: "python3 --version" }, "allow"],
    [{ action: "start", command: "tail -f log" }, "allow"],
    [{ action: "write", id: "p1", input: "rm -rf /\n" }, "deny"],
    [{ action: "write", id: "p1", input: "ls\n" }, "allow"],
    [{ action: "write", id: "p4", input: "shutdown -h now\n" }, "deny"],
    [{ action: "write", id: "p2", input: "print(1)\n" }, "ask"],
    [{ action: "write", id: "p3", input: "rm -rf /\n" }, "none"],
    [{ action: "write", id: "p9", input: "ls\n" }, "ask"],
  ])("process %j → %s", async (args, expected) => {
    expect(await verdict("process", args)).toBe(expected);
  });
});
