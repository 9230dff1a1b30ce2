import { type Static, Type } from "typebox";

/** Actions of `task`. */
export const TASK_ACTIONS = ["create", "status", "update", "stop"] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];

/** Actions of `workflow`. */
export const WORKFLOW_ACTIONS = ["create", "status", "stop"] as const;
export type WorkflowAction = (typeof WORKFLOW_ACTIONS)[number];

/** Most steps one workflow may have (each is a child run and counts toward max_children_per_run). */
export const WORKFLOW_MAX_STEPS = 20;

/** What a child run should do. */
export const childTask = Type.String({
  minLength: 1,
  maxLength: 100_000,
  description: "What the sub-agent should do",
});

/** The child's tools: a subset of the parent's. */
export const childTools = Type.Array(Type.String({ minLength: 1 }), {
  maxItems: 200,
  description: "Tools the sub-agent may use: a subset of yours (default: all of yours)",
});

/** The child's step budget: at most the parent's. */
export const childSteps = Type.Integer({
  minimum: 1,
  maximum: 1000,
  description: "Most model turns (at most yours)",
});

/** delegate_task's and spawn_task's arguments. */
export const ChildParams = Type.Object(
  { task: childTask, allowed_tools: Type.Optional(childTools), max_steps: Type.Optional(childSteps) },
  { additionalProperties: false },
);
export type ChildParamsValue = Static<typeof ChildParams>;
