import { describe, expect, it } from "vitest";
import type { AgentJobPayload } from "../../queue/index.js";
import { ManualClock } from "../../shared/index.js";
import { createSubagentTools, createToolExecutionContext, invokeTool } from "../../tools/index.js";
import { ParkSignal } from "./park-signal.js";
import type { ChildrenPort } from "./ports.js";
import type { RunDeps } from "./run-contract.js";
import { createRunControl } from "./run-control.js";
import type { RunScope } from "./run-scope.js";

/**
 * What the run loop's controls do that a tool result cannot carry: a park, and a failed queue write.
 * Invoking a tool turns its throws into results, so the controls keep the interruption for the run
 * loop to raise; neither is ever journalled as the call's answer.
 */
function scopeWith(children: Partial<ChildrenPort>): RunScope {
  const payload = {
    v: 1,
    runId: "parent",
    traceId: "trace",
    agent: { model: "m", task: "t", allowedTools: ["delegate_task"], maxSteps: 5, workspace: "/srv/ws" },
    origin: { kind: "cli" },
    sessionKey: "s",
    userId: "ann",
    agentId: "a",
    channel: "cli",
    chatId: "",
    unattended: false,
    parentExecutionId: null,
    depth: 0,
    createdAt: 0,
  } as AgentJobPayload;
  return {
    payload,
    jobId: "job",
    owner: "w",
    policy: { allowed: new Set(["delegate_task"]) } as unknown as RunScope["policy"],
    cronAuthorized: false,
    deps: {
      children,
      childLimits: { maxDepth: 2, maxChildrenPerRun: 5 },
      childRecheckMs: 1000,
      clock: new ManualClock(10),
    } as unknown as RunDeps,
    recorded: new Map(),
    // These tests run tools with the run's controls only: nothing reaches the outbox.
    outbox: undefined as unknown as RunScope["outbox"],
    childOrdinals: new Map([["k", 0]]),
  };
}

async function delegate(scope: RunScope) {
  const control = createRunControl(scope, "k", {
    tool: "delegate_task",
    args: {},
    risk: "exec",
    argsHash: "h",
  });
  const tool = createSubagentTools()[0]!;
  const args = { task: "child work" };
  const ctx = createToolExecutionContext({
    executionId: "parent",
    traceId: "trace",
    sessionKey: "s",
    userId: "ann",
    agentId: "a",
    call: { toolName: "delegate_task", callIndex: 0, params: args },
    allowedTools: ["delegate_task"],
    channel: "cli",
    unattended: false,
    workspace: "/srv/ws",
    runControl: control.port,
  });
  return { result: await invokeTool(tool, args, ctx), interruption: control.interruption() };
}

describe("createRunControl", () => {
  it("a child still running parks the run (re-checked after childRecheckMs): the park is the interruption", async () => {
    const { interruption } = await delegate(
      scopeWith({ start: async () => undefined, state: async () => ({ status: "running" }) }),
    );
    expect(interruption).toBeInstanceOf(ParkSignal);
    expect((interruption as ParkSignal).wakeAt).toBe(1010);
  });

  it("a failed queue write is the interruption, not a tool failure to journal", async () => {
    const down = new Error("redis down");
    const { interruption } = await delegate(
      scopeWith({
        start: async () => {
          throw down;
        },
      }),
    );
    expect(interruption).toBe(down);
  });

  it("a finished child is the call's answer, with no interruption", async () => {
    const { result, interruption } = await delegate(
      scopeWith({
        start: async () => undefined,
        state: async () => ({ status: "completed", finalAnswer: "42" }),
      }),
    );
    expect(interruption).toBeUndefined();
    expect(result).toMatchObject({ success: true, output: "42" });
  });
});
