import type { TSchema } from "typebox";
import type { AnyTool, RunControl, ToolExecutionContext } from "../../catalog/index.js";
import { defineTool, type ToolDefinition, type ToolFailure, toolFailure } from "../../catalog/index.js";

/** An hour: longer than any of the run loop's own writes may take (see defineLoopTool). */
const LOOP_TOOL_TIMEOUT_SECONDS = 3600;

/** The tool objects defined with {@link defineLoopTool}: what they are, not what they are named. */
const LOOP_TOOLS = new WeakSet<AnyTool>();

/**
 * Defines a tool that acts on its own run through {@link RunControl}. The run loop gives such a
 * tool the port and runs it before the call's journal claim: it may park the run (a claim must not
 * stay open across a park), and its effects are made exactly-once by ids derived from the call, not
 * by the claim. Its result is journalled like any other.
 */
export function defineLoopTool<T extends TSchema>(def: ToolDefinition<T>): AnyTool {
  // No call timeout of its own: its work is a few queue or approval-store writes (an approval
  // request notifies people first, which may be slow), and a timeout recorded as its result would
  // stand for a child or a question that was in fact started.
  const tool = defineTool({ timeoutSeconds: LOOP_TOOL_TIMEOUT_SECONDS, ...def });
  LOOP_TOOLS.add(tool);
  return tool;
}

/** Whether the run loop gives `tool` its {@link RunControl} (true only for tools from defineLoopTool). */
export function usesRunControl(tool: AnyTool): boolean {
  return LOOP_TOOLS.has(tool);
}

/** The run's controls, or the failure of a loop tool invoked outside a run. */
export function runControlOf(name: string, ctx: ToolExecutionContext): RunControl | ToolFailure {
  return (
    ctx.runControl ??
    toolFailure("internal", `${name} is carried out by the run loop and cannot be invoked directly`)
  );
}

/** True for the failure {@link runControlOf} returns. */
export function isFailure(value: object): value is ToolFailure {
  return "success" in value;
}
