import { describe, expect, it } from "vitest";
import {
  describeCatalogTool,
  type SubagentTool,
  type ToolDescriptor,
  type ToolResult,
} from "../../catalog/index.js";
import { resolveToolPolicy } from "../../policy/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import { ManualClock } from "../../shared/index.js";
import { createSubagentTools, createToolExecutionContext, invokeTool } from "../../tools/index.js";
import type { ChildrenPort } from "./ports.js";
import type { RunDeps } from "./run-contract.js";
import { createRunControl } from "./run-control.js";
import type { RunScope } from "./run-scope.js";

/**
 * delegate_task, spawn_task, task and workflow hand their children the same attenuated inheritance:
 * a subset of the parent's tools (never more), its unattended flag, trace, user, channel, schedule
 * (whose grant the child checks again), session mode and workspace, and at most its step budget.
 */

const PARENT_TOOLS = ["read_file", "write_file", "delegate_task", "spawn_task", "task", "workflow"];

function recordingChildren(): { port: ChildrenPort; started: AgentJobPayload[] } {
  const started: AgentJobPayload[] = [];
  const port = {
    async start(payload: AgentJobPayload) {
      started.push(payload);
    },
    async state() {
      return { status: "completed" as const, finalAnswer: "done" };
    },
    async startFlow(_record: unknown, steps: readonly AgentJobPayload[]) {
      started.push(...steps);
      return "started" as const;
    },
  } as unknown as ChildrenPort;
  return { port, started };
}

function parentScope(children: ChildrenPort): RunScope {
  const payload: AgentJobPayload = {
    v: 1,
    runId: "parent-run",
    traceId: "trace-1",
    agent: {
      model: "m",
      task: "parent",
      allowedTools: PARENT_TOOLS,
      maxSteps: 7,
      workspace: "/srv/ws",
      sessionMode: "guarded",
    },
    origin: { kind: "schedule", scheduleId: "nightly" },
    sessionKey: "session-1",
    userId: "ann",
    agentId: "triage",
    channel: "cron",
    chatId: "",
    unattended: true,
    parentExecutionId: null,
    depth: 0,
    createdAt: 0,
  };
  const policy = resolveToolPolicy({
    tools: PARENT_TOOLS.map(
      (name) => describeCatalogTool(name, { ready: true, enabled: true, detail: "ok" }) as ToolDescriptor,
    ),
    profile: "full",
    lists: [],
    securityProfile: "personal_cli",
    networkPolicy: "allow",
    allowedHosts: [],
    sessionMode: "guarded",
    restrictToWorkspace: true,
    jobSubsets: [],
    deferred: [],
  });
  const deps = {
    children,
    childLimits: { maxDepth: 3, maxChildrenPerRun: 10 },
    childRecheckMs: 1000,
    clock: new ManualClock(5),
  } as unknown as RunDeps;
  return {
    payload,
    jobId: "job",
    owner: "w",
    policy,
    cronAuthorized: true,
    deps,
    recorded: new Map(),
    // These tests run tools with the run's controls only: nothing reaches the outbox.
    outbox: undefined as unknown as RunScope["outbox"],
    childOrdinals: new Map([["k", 0]]),
  };
}

/** Runs one sub-agent tool as the run loop does: with the run's controls for the call "k". */
async function subagentResult(
  scope: RunScope,
  name: SubagentTool,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const tool = createSubagentTools().find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const control = createRunControl(scope, "k", { tool: name, args, risk: "exec", argsHash: "h" });
  const ctx = createToolExecutionContext({
    executionId: scope.payload.runId,
    traceId: scope.payload.traceId,
    sessionKey: scope.payload.sessionKey,
    userId: scope.payload.userId,
    agentId: scope.payload.agentId,
    call: { toolName: name, callIndex: 0, params: args },
    allowedTools: scope.policy.allowed,
    channel: scope.payload.channel,
    unattended: scope.payload.unattended,
    workspace: scope.payload.agent.workspace,
    runControl: control.port,
  });
  return invokeTool(tool, args, ctx);
}

const CREATE: Record<SubagentTool, (tools?: string[]) => Record<string, unknown>> = {
  delegate_task: (tools) => ({ task: "child", max_steps: 50, ...(tools ? { allowed_tools: tools } : {}) }),
  spawn_task: (tools) => ({ task: "child", max_steps: 50, ...(tools ? { allowed_tools: tools } : {}) }),
  task: (tools) => ({
    action: "create",
    task: "child",
    max_steps: 50,
    ...(tools ? { allowed_tools: tools } : {}),
  }),
  workflow: (tools) => ({
    action: "create",
    steps: [{ id: "only", task: "child", max_steps: 50, ...(tools ? { allowed_tools: tools } : {}) }],
  }),
};

describe("every sub-agent tool hands its child the same attenuated inheritance", () => {
  it.each(Object.keys(CREATE) as SubagentTool[])(
    "%s: the child inherits, and gets no more than the parent has",
    async (tool) => {
      const { port, started } = recordingChildren();
      await subagentResult(parentScope(port), tool, CREATE[tool](["read_file"]));
      expect(started).toHaveLength(1);
      expect(started[0]).toMatchObject({
        traceId: "trace-1",
        agent: { allowedTools: ["read_file"], maxSteps: 7, workspace: "/srv/ws", sessionMode: "guarded" },
        origin: { kind: "parent", scheduleId: "nightly" },
        userId: "ann",
        agentId: "triage",
        channel: "cron",
        unattended: true,
        parentExecutionId: "parent-run",
        depth: 1,
      });
    },
  );

  it.each(Object.keys(CREATE) as SubagentTool[])(
    "%s: a child asking for a tool its parent lacks is refused, nothing starts",
    async (tool) => {
      const { port, started } = recordingChildren();
      const result = await subagentResult(parentScope(port), tool, CREATE[tool](["read_file", "exec"]));
      expect(result).toMatchObject({ success: false, errorKind: "denied" });
      expect(result.success ? "" : result.error).toContain("not allowed here: exec");
      expect(started).toHaveLength(0);
    },
  );

  it.each(Object.keys(CREATE) as SubagentTool[])(
    "%s: without allowed_tools the child gets exactly the parent's tools",
    async (tool) => {
      const { port, started } = recordingChildren();
      await subagentResult(parentScope(port), tool, CREATE[tool]());
      expect([...(started[0]?.agent.allowedTools ?? [])].sort()).toEqual([...PARENT_TOOLS].sort());
    },
  );
});
