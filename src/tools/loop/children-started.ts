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
