import { type ToolResult, toolFailure, toolSuccess } from "../../tools/index.js";
import { childPayload, fanOutDenial } from "./child-payload.js";
import { ParkSignal } from "./park-signal.js";
import type { RunScope } from "./run-scope.js";
import type { SubagentTool } from "./subagent-tools.js";
import { type TaskArgs, taskResult } from "./task-call.js";
import { type WorkflowArgs, workflowResult } from "./workflow-call.js";

export { childPayload, childRunId } from "./child-payload.js";

/**
 * Carries out delegate_task / spawn_task / task / workflow. Returns the result to journal, or throws
 * ParkSignal while a delegated child is still running (the parent holds no worker; the child's end
 * wakes it, a child that ended while the parent was parking is seen by the signal's ready check, and
 * the parent re-checks at least every childRecheckMs).
 */
export async function subagentResult(
  scope: RunScope,
  tool: SubagentTool,
  key: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const { deps } = scope;
  if (tool === "task") return taskResult(scope, key, args as unknown as TaskArgs);
  if (tool === "workflow") return workflowResult(scope, key, args as unknown as WorkflowArgs);
  const denied = fanOutDenial(scope, key, 1);
  if (denied) return denied;
  const child = childPayload(
    scope,
    key,
    args as { task: string; allowed_tools?: string[]; max_steps?: number },
  );
  if (!("v" in child)) return child;
  await deps.children.start(child);
  if (tool === "spawn_task") return toolSuccess(`started task ${child.runId}`, { id: child.runId });
  const state = await deps.children.state(child.runId);
  switch (state.status) {
    case "completed":
      return toolSuccess(state.finalAnswer, { id: child.runId });
    case "failed":
      return toolFailure("business", `the sub-agent failed: ${state.error}`, { id: child.runId });
    case "pending":
    case "running":
    case "missing":
      throw new ParkSignal(
        deps.clock.now() + deps.childRecheckMs,
        `waiting for sub-agent ${child.runId}`,
        async () => ["completed", "failed"].includes((await deps.children.state(child.runId)).status),
      );
  }
}
