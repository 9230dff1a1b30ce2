import { Type } from "typebox";
import { type AnyTool, defineTool, toolFailure } from "../../tools/index.js";

/** Tools the run loop carries out itself, because they start or read other runs. */
export const SUBAGENT_TOOLS = ["delegate_task", "spawn_task", "task"] as const;
export type SubagentTool = (typeof SUBAGENT_TOOLS)[number];

export function isSubagentTool(name: string): name is SubagentTool {
  return (SUBAGENT_TOOLS as readonly string[]).includes(name);
}

const ChildParams = Type.Object(
  {
    task: Type.String({ minLength: 1, maxLength: 100_000, description: "What the sub-agent should do" }),
    allowed_tools: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: 200,
        description: "Tools the sub-agent may use: a subset of yours (default: all of yours)",
      }),
    ),
    max_steps: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

const TaskParams = Type.Object(
  {
    action: Type.Literal("status", { description: "Read the state and result of a task you started" }),
    id: Type.String({ minLength: 1, maxLength: 200, description: "The id spawn_task returned" }),
  },
  { additionalProperties: false },
);

const handledByLoop = async () =>
  toolFailure("internal", "this tool is carried out by the run loop and cannot be invoked directly");

/**
 * delegate_task (start a child run and wait for its answer, holding no worker), spawn_task (start
 * it and return its id at once) and task (read a started task's state). Their execution lives in
 * the run loop, which owns the queue and the parking; these objects give them schemas, metadata and
 * presence for policy.
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
      description: "Read the state and final answer of a task started with spawn_task",
      parameters: TaskParams,
      isReadOnly: () => true,
      execute: handledByLoop,
    }),
  ];
}
