import type { AnyTool } from "../../catalog/index.js";
import { createClarifyTool } from "./clarify.js";
import { createDelegateTaskTool, createSpawnTaskTool } from "./delegate-task.js";
import { createTaskTool } from "./task.js";
import { createWorkflowTool } from "./workflow.js";

export { childrenStartedBy } from "./children-started.js";
export { createClarifyTool } from "./clarify.js";
export { usesRunControl } from "./loop-tool.js";

/**
 * delegate_task (start a child run and wait for its answer, holding no worker), spawn_task (start
 * it and return its id at once), task (create / status / update / stop queued tasks) and workflow
 * (a dependent set of tasks run as one BullMQ flow).
 */
export function createSubagentTools(): AnyTool[] {
  return [createDelegateTaskTool(), createSpawnTaskTool(), createTaskTool(), createWorkflowTool()];
}

/** Every tool that acts on its own run through RunControl: the sub-agent tools and clarify. */
export function createLoopTools(): AnyTool[] {
  return [...createSubagentTools(), createClarifyTool()];
}
