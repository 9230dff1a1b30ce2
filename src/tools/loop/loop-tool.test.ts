import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { defineTool, toolSuccess } from "../../catalog/index.js";
import { createToolExecutionContext } from "../registry/execution-context.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createLoopTools, usesRunControl } from "./index.js";

const NAMES = ["delegate_task", "spawn_task", "task", "workflow", "clarify"];

function contextFor(name: string, params: unknown) {
  return createToolExecutionContext({
    executionId: "run-1",
    traceId: "trace-1",
    sessionKey: "s",
    userId: "ann",
    agentId: "a",
    call: { toolName: name, callIndex: 0, params },
    allowedTools: NAMES,
    channel: "cli",
    unattended: false,
    workspace: "/srv/ws",
  });
}

describe("loop tools", () => {
  it("are the five tools that use the run's controls; a tool that only shares a name does not get them", () => {
    const tools = createLoopTools();
    expect(tools.map((t) => t.name)).toEqual(NAMES);
    for (const tool of tools) expect(usesRunControl(tool)).toBe(true);
    const impostor = defineTool({
      name: "task",
      description: "not the loop's",
      parameters: Type.Object({}),
      execute: async () => toolSuccess("ok"),
    });
    expect(usesRunControl(impostor)).toBe(false);
  });

  it.each([
    ["delegate_task", { task: "x" }],
    ["spawn_task", { task: "x" }],
    ["task", { action: "status", id: "t" }],
    ["workflow", { action: "status", id: "w" }],
    ["clarify", { question: "?" }],
  ])("%s outside a run (no controls on its context) fails without acting", async (name, args) => {
    const tool = createLoopTools().find((t) => t.name === name);
    const result = await invokeTool(tool!, args, contextFor(name, args));
    expect(result).toMatchObject({ success: false, errorKind: "internal" });
    expect(result.success ? "" : result.error).toContain("carried out by the run loop");
  });

  it("keep their controls off the context's data (not enumerable, like credentials)", () => {
    const ctx = contextFor("task", {});
    expect(ctx.runControl).toBeUndefined();
    expect(Object.keys(ctx)).not.toContain("runControl");
  });
});
