import { Type } from "typebox";
import type { AnyTool, ChildFlowRecord, RunControl } from "../../catalog/index.js";
import { type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { sha256Hex } from "../../shared/index.js";
import { missingForAction } from "../action-args.js";
import {
  childSteps,
  childTask,
  childTools,
  WORKFLOW_ACTIONS,
  WORKFLOW_MAX_STEPS,
  type WorkflowAction,
} from "./child-schemas.js";
import { describeState } from "./describe-state.js";
import { defineLoopTool, isFailure, runControlOf } from "./loop-tool.js";
import { orderWorkflowSteps, type WorkflowStepSpec } from "./workflow-spec.js";

const WorkflowStep = Type.Object(
  {
    id: Type.String({
      pattern: "^[a-zA-Z0-9_-]{1,40}$",
      description: "The step's name within the workflow (letters, digits, _ and -)",
    }),
    task: childTask,
    depends_on: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        maxItems: WORKFLOW_MAX_STEPS,
        description: "Steps that must complete first; their answers are given to this step",
      }),
    ),
    allowed_tools: Type.Optional(childTools),
    max_steps: Type.Optional(childSteps),
  },
  { additionalProperties: false },
);

const WorkflowParams = Type.Object(
  {
    action: Type.Enum(WORKFLOW_ACTIONS, {
      description: "create (queue the steps), status (each step's state), stop (every step)",
    }),
    id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "The workflow's id (status, stop)" }),
    ),
    steps: Type.Optional(
      Type.Array(WorkflowStep, {
        minItems: 1,
        maxItems: WORKFLOW_MAX_STEPS,
        description: "The steps (create); without depends_on they run in the order given",
      }),
    ),
  },
  { additionalProperties: false },
);

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

async function ownFlow(
  control: RunControl,
  id: string,
  action: WorkflowAction,
): Promise<ChildFlowRecord | ToolResult> {
  const record = await control.flow(id);
  if (!record) return toolFailure("business", `workflow ${id} is unknown (or finished and no longer kept)`);
  if (record.parentRunId !== control.runId) {
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
async function workflowResult(control: RunControl, args: WorkflowArgs): Promise<ToolResult> {
  if (args.action === "create") {
    const steps = args.steps;
    if (steps === undefined) return missingForAction(["steps"], "create");
    const ordered = orderWorkflowSteps(steps);
    if (!ordered.ok) return ordered.result;
    const id = workflowId(control.runId, control.callKey);
    const runIdOf = (step: string) => `${id}.${step}`;
    const started = await control.startFlow(
      id,
      ordered.order.map((step) => ({
        step: step.id,
        runId: runIdOf(step.id),
        dependsOn: (step.depends_on ?? []).map(runIdOf),
        spec: { task: step.task, allowed_tools: step.allowed_tools, max_steps: step.max_steps },
        field: `steps.${steps.indexOf(step)}`,
      })),
    );
    if ("refused" in started) return toolFailure("denied", started.refused);
    const { record } = started;
    return toolSuccess(
      `${started.outcome === "started" ? "started" : "already started"} workflow ${id}; steps in dependency order (independent branches may run at once): ${record.steps
        .map((s) => s.step)
        .join(" → ")}`,
      { id, steps: record.steps },
    );
  }
  if (args.id === undefined) return missingForAction(["id"], args.action);
  const record = await ownFlow(control, args.id, args.action);
  if ("success" in record) return record;
  if (args.action === "status") {
    const states = await Promise.all(record.steps.map((s) => control.childState(s.runId)));
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
    outcomes.push({ step: step.step, outcome: await control.stopChild(step.runId) });
  return toolSuccess(
    `stopped workflow ${record.id}: ${outcomes.map((o) => `${o.step} ${o.outcome}`).join(", ")}`,
    { id: record.id, steps: outcomes },
  );
}

/** workflow: a dependent set of sub-agent tasks run as one flow (create), read (status) or stopped. */
export function createWorkflowTool(): AnyTool {
  return defineLoopTool({
    name: "workflow",
    description:
      "Run a set of sub-agent tasks in dependency order as one workflow (create), read every step (status) or stop it",
    parameters: WorkflowParams,
    isReadOnly: (args) => args.action === "status",
    idempotent: true,
    execute: async (args, ctx) => {
      const control = runControlOf("workflow", ctx);
      return isFailure(control) ? control : workflowResult(control, args);
    },
  });
}
