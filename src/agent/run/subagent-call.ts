import { resolveChildToolSubset } from "../../policy/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import { sha256Hex } from "../../shared/index.js";
import { type ToolResult, toolFailure, toolSuccess } from "../../tools/index.js";
import { ParkSignal } from "./park-signal.js";
import type { RunScope } from "./run-scope.js";
import type { SubagentTool } from "./subagent-tools.js";

/** A child's run id: derived from the parent run and the call's idempotency key, so a replay never starts a second child. */
export function childRunId(parentRunId: string, idempotencyKey: string): string {
  return `child-${sha256Hex(`${parentRunId}\u0000${idempotencyKey}`).slice(0, 32)}`;
}

/**
 * Builds the child's payload: it inherits unattended, the trace, the user, the channel and the
 * schedule (whose grant is checked again when the child starts), carries parentExecutionId, and
 * gets a tool set that is a subset of the parent's — asking for more is an error, never a grant.
 */
export function childPayload(
  scope: RunScope,
  key: string,
  args: { task: string; allowed_tools?: string[]; max_steps?: number },
): AgentJobPayload | ToolResult {
  const { payload, deps } = scope;
  if (payload.depth + 1 > deps.childLimits.maxDepth) {
    return toolFailure(
      "denied",
      `sub-agents may nest at most ${deps.childLimits.maxDepth} deep (execution.max_child_depth)`,
    );
  }
  const parentTools = [...scope.policy.allowed];
  const subset = resolveChildToolSubset(parentTools, args.allowed_tools);
  if (subset.refused.length > 0) {
    return toolFailure(
      "denied",
      `a sub-agent's tools must be a subset of this run's; not allowed here: ${subset.refused.join(", ")}`,
    );
  }
  return {
    v: 1,
    runId: childRunId(payload.runId, key),
    traceId: payload.traceId,
    agent: {
      model: payload.agent.model,
      task: args.task,
      allowedTools: [...subset.tools],
      maxSteps: Math.min(args.max_steps ?? payload.agent.maxSteps, payload.agent.maxSteps),
      workspace: payload.agent.workspace,
      ...(payload.agent.sessionMode ? { sessionMode: payload.agent.sessionMode } : {}),
    },
    origin: {
      kind: "parent",
      ...(payload.origin.scheduleId ? { scheduleId: payload.origin.scheduleId } : {}),
    },
    sessionKey: payload.sessionKey,
    userId: payload.userId,
    agentId: payload.agentId,
    channel: payload.channel,
    chatId: payload.chatId,
    unattended: payload.unattended,
    parentExecutionId: payload.runId,
    depth: payload.depth + 1,
    createdAt: deps.clock.now(),
  };
}

/**
 * Carries out delegate_task / spawn_task / task. Returns the result to journal, or throws
 * ParkSignal while a delegated child is still running (the parent holds no worker; the child's end
 * wakes it, and it re-checks at least every childRecheckMs).
 */
export async function subagentResult(
  scope: RunScope,
  tool: SubagentTool,
  key: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const { deps } = scope;
  if (tool === "task") {
    const state = await deps.children.state(String(args.id));
    switch (state.status) {
      case "completed":
        return toolSuccess(`task ${String(args.id)} completed: ${state.finalAnswer}`, { state });
      case "failed":
        return toolSuccess(`task ${String(args.id)} failed: ${state.error}`, { state });
      default:
        return toolSuccess(`task ${String(args.id)} is ${state.status}`, { state });
    }
  }
  const ordinal = scope.childOrdinals.get(key) ?? Number.POSITIVE_INFINITY;
  if (ordinal >= deps.childLimits.maxChildrenPerRun) {
    return toolFailure(
      "denied",
      `a run may start at most ${deps.childLimits.maxChildrenPerRun} sub-agents (execution.max_children_per_run)`,
    );
  }
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
      throw new ParkSignal(deps.clock.now() + deps.childRecheckMs, `waiting for sub-agent ${child.runId}`);
  }
}
