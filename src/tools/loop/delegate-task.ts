import type { AnyTool, RunControl, ToolExecutionContext } from "../../catalog/index.js";
import { type ToolFailure, type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { ChildParams, type ChildParamsValue } from "./child-schemas.js";
import { defineLoopTool, isFailure, runControlOf } from "./loop-tool.js";

/** Starts the call's one child (the same child on every replay), or says why not. */
async function startOne(
  name: string,
  args: ChildParamsValue,
  ctx: ToolExecutionContext,
): Promise<{ control: RunControl; id: string } | ToolFailure> {
  const control = runControlOf(name, ctx);
  if (isFailure(control)) return control;
  const started = await control.startChild(args);
  if ("refused" in started) return toolFailure("denied", started.refused);
  return { control, id: started.id };
}

/**
 * delegate_task: start a child run and wait for its final answer. While the child runs the parent
 * is parked (it holds no worker); the child's end wakes it and the call runs again, finding the same
 * child (its id derives from the call) and, now, its answer.
 */
export function createDelegateTaskTool(): AnyTool {
  return defineLoopTool({
    name: "delegate_task",
    description: "Delegate a task to a sub-agent and wait for its final answer",
    parameters: ChildParams,
    execute: async (args, ctx): Promise<ToolResult> => {
      const started = await startOne("delegate_task", args, ctx);
      if (isFailure(started)) return started;
      const { control } = started;
      const state = await control.childState(started.id);
      switch (state.status) {
        case "completed":
          return toolSuccess(state.finalAnswer, { id: started.id });
        case "failed":
          return toolFailure("business", `the sub-agent failed: ${state.error}`, { id: started.id });
        case "pending":
        case "running":
        case "missing":
          return control.waitForChild(started.id);
      }
    },
  });
}

/** spawn_task: start a child run in the background and return its id at once (read it with task). */
export function createSpawnTaskTool(): AnyTool {
  return defineLoopTool({
    name: "spawn_task",
    description: "Start a sub-agent task in the background; returns its id (read it later with task)",
    parameters: ChildParams,
    execute: async (args, ctx): Promise<ToolResult> => {
      const started = await startOne("spawn_task", args, ctx);
      if (isFailure(started)) return started;
      return toolSuccess(`started task ${started.id}`, { id: started.id });
    },
  });
}
