import { missingForAction, type ToolResult, toolFailure, toolSuccess } from "../../tools/index.js";
import { childPayload, fanOutDenial } from "./child-payload.js";
import type { ChildState } from "./ports.js";
import type { RunScope } from "./run-scope.js";
import type { TaskAction } from "./subagent-tools.js";

/** `task`'s arguments (schema-valid). */
export interface TaskArgs {
  action: TaskAction;
  id?: string;
  task?: string;
  allowed_tools?: string[];
  max_steps?: number;
  priority?: number;
}

/** The text of a child's state, as status, update and stop report it. */
export function describeState(id: string, state: ChildState): string {
  switch (state.status) {
    case "completed":
      return `task ${id} completed: ${state.finalAnswer}`;
    case "failed":
      return `task ${id} failed: ${state.error}`;
    case "missing":
      return `task ${id} is missing (unknown, or finished and no longer kept)`;
    default:
      return `task ${id} is ${state.status}`;
  }
}

/**
 * Whether `id` is a task this run started (its payload names this run as parent). Any other id is
 * refused the same way whether it exists or not, so a run cannot probe or touch other runs.
 */
async function ownTask(scope: RunScope, id: string, action: TaskAction): Promise<ToolResult | undefined> {
  const payload = await scope.deps.children.payload(id);
  if (payload === undefined) {
    // Gone (removed after finishing, or never existed): nothing to read or change.
    return action === "status"
      ? toolSuccess(describeState(id, { status: "missing" }), { state: { status: "missing" } })
      : toolFailure(
          "business",
          `task ${id} is not queued or running (unknown, or finished and no longer kept)`,
        );
  }
  if (payload.parentExecutionId !== scope.payload.runId) {
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
export async function taskResult(scope: RunScope, key: string, args: TaskArgs): Promise<ToolResult> {
  const { deps } = scope;
  if (args.action === "create") {
    if (args.task === undefined) return missingForAction(["task"], "create");
    const denied = fanOutDenial(scope, key, 1);
    if (denied) return denied;
    const child = childPayload(scope, key, {
      task: args.task,
      allowed_tools: args.allowed_tools,
      max_steps: args.max_steps,
    });
    if (!("v" in child)) return child;
    await deps.children.start(child, args.priority ? { priority: args.priority } : {});
    return toolSuccess(`created task ${child.runId}${args.priority ? ` (priority ${args.priority})` : ""}`, {
      id: child.runId,
    });
  }
  if (args.id === undefined) return missingForAction(["id"], args.action);
  const id = args.id;
  if (args.action === "update" && args.task === undefined && args.priority === undefined) {
    return missingForAction(["task or priority"], "update");
  }
  const refused = await ownTask(scope, id, args.action);
  if (refused) return refused;
  switch (args.action) {
    case "status": {
      const state = await deps.children.state(id);
      return toolSuccess(describeState(id, state), { state });
    }
    case "update": {
      const outcome = await deps.children.update(id, {
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
      const outcome = await deps.children.stop(id);
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
