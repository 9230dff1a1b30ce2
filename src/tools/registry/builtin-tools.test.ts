import { readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { testPayload, testRunDeps } from "../../../test/helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { journalledCall } from "../../../test/helpers/tool-call.js";
import { redisSpillStore, runAgent } from "../../agent/index.js";
import { type AnyTool, isKnownTool } from "../../catalog/index.js";
import { createPathFence } from "../../guard/index.js";
import { Journal } from "../../journal/index.js";
import { nodeFsView } from "../../platform/index.js";
import { isRunnerError, ManualClock } from "../../shared/index.js";
import type { BuiltinToolRuntime } from "../builtin-runtime.js";
import { callContext, fenceFactory, tempWorkspace, testSupervisor } from "./builtin-tools.fixture.js";
import { createBuiltinTools } from "./builtin-tools.js";
import { createToolRegistry } from "./registry.js";

const redis = testRedisClient();
const keyPrefix = uniquePrefix("builtin");
const supervisor = testSupervisor();
const clock = new ManualClock(1_000);
afterAll(async () => {
  await supervisor.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

function runtime(overrides: Partial<BuiltinToolRuntime> = {}): BuiltinToolRuntime {
  return {
    pathFence: fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
    redis,
    keyPrefix,
    runStateRetentionMs: 60_000,
    spill: redisSpillStore(redis, keyPrefix, 60_000),
    processes: supervisor,
    execHost: "local",
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    clock,
    ...overrides,
  };
}

const tools = createBuiltinTools(runtime());
const byName = (name: string) => tools.find((t) => t.name === name) as AnyTool;

describe("createBuiltinTools", () => {
  it("builds the sixteen file, git, process and run-state tools under their catalog names", () => {
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "edit_file",
        "exec",
        "execute_code",
        "git_diff",
        "git_log",
        "git_show",
        "git_status",
        "list_dir",
        "memory",
        "patch",
        "process",
        "read_file",
        "read_spill",
        "search_files",
        "todo",
        "write_file",
      ].sort(),
    );
    expect(tools.every((t) => isKnownTool(t.name))).toBe(true);
    const registry = createToolRegistry(tools);
    // None of them needs the network, and all are ready with a local exec host and a live Redis.
    const states = registry.describe({ networkAvailable: false }).map((d) => d.state);
    expect(states.every((s) => s.ready && s.enabled)).toBe(true);
  });

  it("marks the exec-class tools not ready, with the reason, unless tools.exec.host is local", () => {
    const remote = createBuiltinTools(runtime({ execHost: "remote" }));
    const notReady = remote.filter((t) => !t.isReady()).map((t) => t.name);
    expect(notReady.sort()).toEqual(["exec", "execute_code", "process"]);
    expect(remote.find((t) => t.name === "exec")?.readinessDetail().detail).toContain(
      "tools.exec.host is remote",
    );
  });

  it.each([
    [{ envAllow: ["GITHUB_TOKEN"] }, "looks like a secret"],
    [{ envAllow: ["BAD NAME"] }, "is invalid"],
    [{ limits: { fileMaxBytes: 0 } }, "fileMaxBytes"],
    [{ limits: { execDefaultTimeoutSeconds: 900 } }, "execDefaultTimeoutSeconds"],
  ] as const)("refuses an invalid runtime %j", (overrides, message) => {
    let error: unknown;
    try {
      createBuiltinTools(runtime(overrides as Partial<BuiltinToolRuntime>));
    } catch (err) {
      error = err;
    }
    expect(isRunnerError(error) && error.code).toBe("TOOL_DEFINITION_INVALID");
    expect((error as Error).message).toContain(message);
  });
});

describe("the built-in tools under the journal", () => {
  const journal = new Journal({ redis, keyPrefix, retentionMs: 60_000 });

  const cat = (file: string) => (ws: string) => readFile(join(ws, file), "utf8");
  it.each([
    ["write_file", { path: "out.txt", content: "v1" }, cat("out.txt")],
    ["edit_file", { path: "seed.txt", old_string: "version 1", new_string: "version 1.1" }, cat("seed.txt")],
    [
      "patch",
      { patch: "--- a/seed.txt\n+++ b/seed.txt\n@@ -1 +1,2 @@\n version 1\n+added\n" },
      cat("seed.txt"),
    ],
    ["exec", { command: "echo ran >> count.txt" }, cat("count.txt")],
    ["execute_code", { language: "bash", code: "echo ran >> count.txt" }, cat("count.txt")],
    [
      "process",
      { action: "start", command: "echo ran" },
      async (_ws: string, runId: string) => String(supervisor.listBackground(runId).length),
    ],
  ] as const)(
    "%s: a replay returns the journalled result and does not repeat the side effect",
    async (name, args, observe) => {
      const ws = await tempWorkspace("replay");
      await writeFile(join(ws, "seed.txt"), "version 1\n");
      const tool = byName(name);
      const ctx = callContext(tool, ws, { params: args });
      const runId = ctx.executionId;
      const first = await journalledCall(journal, runId, tool, args, ctx);
      expect(first).toMatchObject({ replay: false, result: { success: true } });
      const afterFirst = await observe(ws, runId);
      const second = await journalledCall(journal, runId, tool, args, ctx);
      expect(second).toEqual({ result: first.result, replay: true });
      expect(await observe(ws, runId)).toBe(afterFirst);
    },
  );

  it("memory and todo: a replay returns the first result, not a second write", async () => {
    for (const [name, args] of [
      ["memory", { action: "write", key: "k", value: "v" }],
      ["todo", { action: "write", items: [{ content: "x", status: "pending" }] }],
    ] as const) {
      const tool = byName(name);
      const ctx = callContext(tool, "/tmp", { params: args });
      const first = await journalledCall(journal, ctx.executionId, tool, args, ctx);
      clock.advance(1000);
      const second = await journalledCall(journal, ctx.executionId, tool, args, ctx);
      expect(second).toEqual({ result: first.result, replay: true });
    }
  });
});

describe("the built-in tools in a durable agent run", () => {
  it("runs a scripted agent's file and exec calls once, and replays the finished run without running them again", async () => {
    const ws = await tempWorkspace("agent");
    await writeFile(join(ws, "notes.md"), "status: draft\n");
    const script = stringify([
      { tool_calls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hello\n" } }] },
      {
        tool_calls: [
          { name: "edit_file", arguments: { path: "notes.md", old_string: "draft", new_string: "final" } },
        ],
      },
      { tool_calls: [{ name: "exec", arguments: { command: "cat hello.txt notes.md >> log.txt" } }] },
      { tool_calls: [{ name: "read_file", arguments: { path: "log.txt" } }] },
      { content: "done" },
    ]);
    const prefix = uniquePrefix("builtin-run");
    const { deps } = await testRunDeps({
      redis,
      keyPrefix: prefix,
      tools: createBuiltinTools(runtime({ keyPrefix: prefix })),
      script,
      configOverrides: {
        permissions: { approval: { mode: "off", auto_approve: ["exec"] }, elevated: { enabled: false } },
      },
    });
    const payload = testPayload({}, { workspace: ws });
    try {
      const first = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      expect(first).toMatchObject({ status: "completed", finalAnswer: "done", toolCalls: 4 });
      const log = await readFile(join(ws, "log.txt"), "utf8");
      expect(log).toBe("hello\nstatus: final\n");
      const second = await runAgent({ payload, jobId: payload.runId, owner: "w2", deps });
      expect(second).toEqual(first);
      expect(await readFile(join(ws, "log.txt"), "utf8")).toBe(log);
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
    }
  });
});
