import { Type } from "typebox";
import type { AnyTool, RunControl } from "../../catalog/index.js";
import { type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { missingForAction } from "../action-args.js";
import { childSteps, childTask, childTools, TASK_ACTIONS, type TaskAction } from "./child-schemas.js";
import { describeState } from "./describe-state.js";
import { defineLoopTool, isFailure, runControlOf } from "./loop-tool.js";

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

/** `task`'s arguments (schema-valid). */
export interface TaskArgs {
  action: TaskAction;
  id?: string;
  task?: string;
  allowed_tools?: string[];
  max_steps?: number;
  priority?: number;
}

/**
 * Whether `id` is a task this run started (its payload names this run as parent). Any other id is
 * refused the same way whether it exists or not, so a run cannot probe or touch other runs.
 */
async function ownTask(control: RunControl, id: string, action: TaskAction): Promise<ToolResult | undefined> {
  const parent = await control.childParent(id);
  if (parent === undefined) {
    // Gone (removed after finishing, or never existed): nothing to read or change.
    return action === "status"
      ? toolSuccess(describeState(id, { status: "missing" }), { state: { status: "missing" } })
      : toolFailure(
          "business",
          `task ${id} is not queued or running (unknown, or finished and no longer kept)`,
        );
  }
  if (parent !== control.runId) {
    return toolFailure(
      "denied",
      `task ${id} was not started by this run; a run may only ${action} its own tasks`,
    );
  }
  return undefined;
}

/**
 * `task`: create queues a child run (spawn_task's rules: a subset of this run's tools, never more,
 * unattended and the schedule's grant inherited, a run id derived from this run and the call, so a
 * replay queues nothing new), status reads it, update changes a task that has not started (its
 * input, its priority), stop removes a queued task or asks a running one to stop at its next step.
 */
async function taskResult(control: RunControl, args: TaskArgs): Promise<ToolResult> {
  if (args.action === "create") {
    if (args.task === undefined) return missingForAction(["task"], "create");
    const started = await control.startChild(
      { task: args.task, allowed_tools: args.allowed_tools, max_steps: args.max_steps },
      args.priority ? { priority: args.priority } : {},
    );
    if ("refused" in started) return toolFailure("denied", started.refused);
    return toolSuccess(`created task ${started.id}${args.priority ? ` (priority ${args.priority})` : ""}`, {
      id: started.id,
    });
  }
  if (args.id === undefined) return missingForAction(["id"], args.action);
  const id = args.id;
  if (args.action === "update" && args.task === undefined && args.priority === undefined) {
    return missingForAction(["task or priority"], "update");
  }
  const refused = await ownTask(control, id, args.action);
  if (refused) return refused;
  switch (args.action) {
    case "status": {
      const state = await control.childState(id);
      return toolSuccess(describeState(id, state), { state });
    }
    case "update": {
      const outcome = await control.updateChild(id, {
        ...(args.task !== undefined ? { task: args.task } : {}),
        ...(args.priority !== undefined ? { priority: args.priority } : {}),
      });
      switch (outcome) {
        case "updated":
          return toolSuccess(`updated task ${id}`, { id, outcome });
        case "started":
          return toolFailure(
            "business",
            `task ${id} has already started; only a queued task can be updated`,
            {
              id,
              outcome,
            },
          );
        case "missing":
          return toolFailure("business", `task ${id} is not queued any more`, { id, outcome });
      }
      break;
    }
    case "stop": {
      const outcome = await control.stopChild(id);
      const text = {
        removed: `stopped task ${id}: removed from the queue before it started`,
        signalled: `asked task ${id} to stop: it stops before its next step`,
        finished: `task ${id} had already finished; nothing to stop`,
        missing: `task ${id} is not queued or running any more`,
      }[outcome];
      return toolSuccess(text, { id, outcome });
    }
  }
  return toolFailure("internal", `unknown task action ${String(args.action)}`);
}

/** task: create / status / update / stop sub-agent tasks this run queued. */
export function createTaskTool(): AnyTool {
  return defineLoopTool({
    name: "task",
    description:
      "Queue a sub-agent task (create), read its state and answer (status), change it while queued (update) or stop it",
    parameters: TaskParams,
    isReadOnly: (args) => args.action === "status",
    // Ids are deterministic and every action converges (a repeated create adds nothing, a repeated
    // stop finds the task stopped), so a call in doubt may run again.
    idempotent: true,
    execute: async (args, ctx) => {
      const control = runControlOf("task", ctx);
      return isFailure(control) ? control : taskResult(control, args);
    },
  });
}
