import type { ChildState } from "../../catalog/index.js";

/** The text of a child's state, as task and workflow report it. */
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
