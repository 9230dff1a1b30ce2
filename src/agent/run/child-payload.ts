import type { ChildRefusal, ChildSpec } from "../../catalog/index.js";
import { resolveChildToolSubset } from "../../policy/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import { sha256Hex } from "../../shared/index.js";
import type { RunScope } from "./run-scope.js";

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
  args: ChildSpec,
  /** A workflow step's own run id and the run ids whose answers it is given. */
  step?: { runId: string; dependsOn: readonly string[] },
): AgentJobPayload | ChildRefusal {
  const { payload, deps } = scope;
  if (payload.depth + 1 > deps.childLimits.maxDepth) {
    return {
      refused: `sub-agents may nest at most ${deps.childLimits.maxDepth} deep (execution.max_child_depth)`,
    };
  }
  const parentTools = [...scope.policy.allowed];
  const subset = resolveChildToolSubset(
    parentTools,
    args.allowed_tools ? [...args.allowed_tools] : undefined,
  );
  if (subset.refused.length > 0) {
    return {
      refused: `a sub-agent's tools must be a subset of this run's; not allowed here: ${subset.refused.join(", ")}`,
    };
  }
  return {
    v: 1,
    runId: step?.runId ?? childRunId(payload.runId, key),
    traceId: payload.traceId,
    agent: {
      model: payload.agent.model,
      task: args.task,
      allowedTools: [...subset.tools],
      maxSteps: Math.min(args.max_steps ?? payload.agent.maxSteps, payload.agent.maxSteps),
      workspace: payload.agent.workspace,
      ...(payload.agent.sessionMode ? { sessionMode: payload.agent.sessionMode } : {}),
      // The parent's own limits bind its sub-agents as the config's do (they share its budget).
      ...(payload.agent.limits ? { limits: payload.agent.limits } : {}),
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
    ...(step && step.dependsOn.length > 0 ? { dependsOn: [...step.dependsOn] } : {}),
    createdAt: deps.clock.now(),
  };
}

/** Refuses a call that would start more children than execution.max_children_per_run allows. */
export function fanOutDenial(scope: RunScope, key: string, starting: number): ChildRefusal | undefined {
  const { maxChildrenPerRun } = scope.deps.childLimits;
  const before = scope.childOrdinals.get(key) ?? Number.POSITIVE_INFINITY;
  if (before + starting <= maxChildrenPerRun) return undefined;
  return {
    refused:
      `a run may start at most ${maxChildrenPerRun} sub-agents (execution.max_children_per_run)` +
      (starting > 1 ? `; this call would start ${starting} after ${before}` : ""),
  };
}
