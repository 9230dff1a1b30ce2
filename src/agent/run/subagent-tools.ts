import { Type } from "typebox";
import { isSubagentTool, SUBAGENT_TOOLS, type SubagentTool } from "../../catalog/index.js";
import { type AnyTool, defineTool, toolFailure } from "../../tools/index.js";

/** Tools the run loop carries out itself, because they start, change or read other runs (catalog field `subagent`). */
export { isSubagentTool, SUBAGENT_TOOLS, type SubagentTool };

/** Actions of `task`. */
export const TASK_ACTIONS = ["create", "status", "update", "stop"] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];

/** Actions of `workflow`. */
export const WORKFLOW_ACTIONS = ["create", "status", "stop"] as const;
export type WorkflowAction = (typeof WORKFLOW_ACTIONS)[number];

/** Most steps one workflow may have (each is a child run and counts toward max_children_per_run). */
export const WORKFLOW_MAX_STEPS = 20;

const childTask = Type.String({
  minLength: 1,
  maxLength: 100_000,
  description: "What the sub-agent should do",
});
const childTools = Type.Array(Type.String({ minLength: 1 }), {
  maxItems: 200,
  description: "Tools the sub-agent may use: a subset of yours (default: all of yours)",
});
const childSteps = Type.Integer({
  minimum: 1,
  maximum: 1000,
  description: "Most model turns (at most yours)",
});

const ChildParams = Type.Object(
  { task: childTask, allowed_tools: Type.Optional(childTools), max_steps: Type.Optional(childSteps) },
  { additionalProperties: false },
);

const TaskParams = Type.Object(
  {
    action: Type.Enum(TASK_ACTIONS, {
      description:
        "create (queue a sub-agent task), status (state and answer), update (change a queued task), stop",
    }),
    id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "The task's id (status, update, stop)" }),
    ),
    task: Type.Optional(childTask),
    allowed_tools: Type.Optional(childTools),
    max_steps: Type.Optional(childSteps),
    priority: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: "Queue priority, 1 = most urgent (create, update)",
      }),
    ),
  },
  { additionalProperties: false },
);

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

const handledByLoop = async () =>
  toolFailure("internal", "this tool is carried out by the run loop and cannot be invoked directly");

/**
 * How many child runs a call would start (0 for reads and changes): the fan-out limit
 * (execution.max_children_per_run) counts them over the journalled model answers.
 */
export function childrenStartedBy(call: { name: string; arguments: unknown }): number {
  const args = call.arguments;
  if (args === null || typeof args !== "object") return 0;
  const a = args as { action?: unknown; steps?: unknown };
  switch (call.name) {
    case "delegate_task":
    case "spawn_task":
      return 1;
    case "task":
      return a.action === "create" ? 1 : 0;
    case "workflow":
      return a.action === "create" && Array.isArray(a.steps) ? Math.max(1, a.steps.length) : 0;
    default:
      return 0;
  }
}

/**
 * delegate_task (start a child run and wait for its answer, holding no worker), spawn_task (start
 * it and return its id at once), task (create / status / update / stop queued tasks) and workflow
 * (a dependent set of tasks run as one BullMQ flow). Their execution lives in the run loop, which
 * owns the queue and the parking; these objects give them schemas, metadata and presence for policy.
 */
export function createSubagentTools(): AnyTool[] {
  return [
    defineTool({
      name: "delegate_task",
      description: "Delegate a task to a sub-agent and wait for its final answer",
      parameters: ChildParams,
      execute: handledByLoop,
    }),
    defineTool({
      name: "spawn_task",
      description: "Start a sub-agent task in the background; returns its id (read it later with task)",
      parameters: ChildParams,
      execute: handledByLoop,
    }),
    defineTool({
      name: "task",
      description:
        "Queue a sub-agent task (create), read its state and answer (status), change it while queued (update) or stop it",
      parameters: TaskParams,
      isReadOnly: (args) => args.action === "status",
      // Ids are deterministic and every action converges (a repeated create adds nothing, a repeated
      // stop finds the task stopped), so a call in doubt may run again.
      idempotent: true,
      execute: handledByLoop,
    }),
    defineTool({
      name: "workflow",
      description:
        "Run a set of sub-agent tasks in dependency order as one workflow (create), read every step (status) or stop it",
      parameters: WorkflowParams,
      isReadOnly: (args) => args.action === "status",
      idempotent: true,
      execute: handledByLoop,
    }),
  ];
}
