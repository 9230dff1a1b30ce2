import type { AgentJobPayload } from "../../queue/index.js";
import { sha256Hex } from "../../shared/index.js";
import { missingForAction, type ToolResult, toolFailure, toolSuccess } from "../../tools/index.js";
import { childPayload, fanOutDenial } from "./child-payload.js";
import type { ChildFlowRecord } from "./ports.js";
import type { RunScope } from "./run-scope.js";
import type { WorkflowAction } from "./subagent-tools.js";
import { describeState } from "./task-call.js";
import { orderWorkflowSteps, type WorkflowStepSpec } from "./workflow-spec.js";

/** `workflow`'s arguments (schema-valid). */
export interface WorkflowArgs {
  action: WorkflowAction;
  id?: string;
  steps?: WorkflowStepSpec[];
}

/** A workflow's id: derived from the run and the call, so a replay names (and starts) the same one. */
export function workflowId(parentRunId: string, idempotencyKey: string): string {
  return `wf-${sha256Hex(`${parentRunId}\u0000${idempotencyKey}`).slice(0, 24)}`;
}

async function ownFlow(scope: RunScope, id: string, action: WorkflowAction) {
  const record = await scope.deps.children.flow(id);
  if (!record) return toolFailure("business", `workflow ${id} is unknown (or finished and no longer kept)`);
  if (record.parentRunId !== scope.payload.runId) {
    return toolFailure(
      "denied",
      `workflow ${id} was not started by this run; a run may only ${action} its own workflows`,
    );
  }
  return record;
}

/**
 * `workflow`: create checks the steps (unique ids, known dependencies, no cycle — each refusal names
 * its field), orders them so every step runs after what it depends on, and queues them as one BullMQ
 * flow in which each step waits for the one before; a step is given its dependencies' answers.
 * Ids derive from this run and the call, so a replay starts nothing twice. status lists every step's
 * state; stop stops every step that has not finished.
 */
export async function workflowResult(scope: RunScope, key: string, args: WorkflowArgs): Promise<ToolResult> {
  const { deps, payload } = scope;
  if (args.action === "create") {
    if (args.steps === undefined) return missingForAction(["steps"], "create");
    const ordered = orderWorkflowSteps(args.steps);
    if (!ordered.ok) return ordered.result;
    const denied = fanOutDenial(scope, key, ordered.order.length);
    if (denied) return denied;
    const id = workflowId(payload.runId, key);
    const runIdOf = (step: string) => `${id}.${step}`;
    const children: AgentJobPayload[] = [];
    for (const step of ordered.order) {
      const child = childPayload(
        scope,
        key,
        { task: step.task, allowed_tools: step.allowed_tools, max_steps: step.max_steps },
        { runId: runIdOf(step.id), dependsOn: (step.depends_on ?? []).map(runIdOf) },
      );
      if (!("v" in child)) {
        const field = `steps.${args.steps.indexOf(step)}`;
        return child.success ? child : { ...child, error: `${field}: ${child.error}` };
      }
      children.push(child);
    }
    const record: ChildFlowRecord = {
      id,
      parentRunId: payload.runId,
      steps: ordered.order.map((s) => ({ step: s.id, runId: runIdOf(s.id) })),
    };
    const started = await deps.children.startFlow(record, children);
    return toolSuccess(
      `${started === "started" ? "started" : "already started"} workflow ${id}; steps in dependency order (independent branches may run at once): ${record.steps
        .map((s) => s.step)
        .join(" → ")}`,
      { id, steps: record.steps },
    );
  }
  if (args.id === undefined) return missingForAction(["id"], args.action);
  const record = await ownFlow(scope, args.id, args.action);
  if ("success" in record) return record;
  if (args.action === "status") {
    const states = await Promise.all(record.steps.map((s) => deps.children.state(s.runId)));
    const lines = record.steps.map(
      (s, i) => `${s.step}: ${describeState(s.runId, states[i] ?? { status: "missing" })}`,
    );
    return toolSuccess(`workflow ${record.id}:\n${lines.join("\n")}`, {
      id: record.id,
      steps: record.steps.map((s, i) => ({ ...s, state: states[i] })),
    });
  }
  // First to last: every step is asked to stop before the last one (the flow's root) is removed
  // with the steps still queued under it, so no step can start in between.
  const outcomes: { step: string; outcome: string }[] = [];
  for (const step of record.steps)
    outcomes.push({ step: step.step, outcome: await deps.children.stop(step.runId) });
  return toolSuccess(
    `stopped workflow ${record.id}: ${outcomes.map((o) => `${o.step} ${o.outcome}`).join(", ")}`,
    { id: record.id, steps: outcomes },
  );
}
