import { type ToolFailure, toolFailure } from "../../catalog/index.js";

/** One step of a workflow as the model wrote it (already schema-valid). */
export interface WorkflowStepSpec {
  readonly id: string;
  readonly task: string;
  readonly depends_on?: readonly string[];
  readonly allowed_tools?: readonly string[];
  readonly max_steps?: number;
}

/**
 * The steps in an order that runs every step after all it depends on (Kahn's algorithm; ties keep
 * the order given, so steps without depends_on run as listed). A duplicate id, an unknown or self
 * dependency, or a cycle is a `validation` failure naming the field (`steps.2.depends_on`, as schema errors name fields).
 */
export function orderWorkflowSteps(
  steps: readonly WorkflowStepSpec[],
): { ok: true; order: WorkflowStepSpec[] } | { ok: false; result: ToolFailure } {
  const fail = (field: string, problem: string) => ({
    ok: false as const,
    result: toolFailure("validation", `${field}: ${problem}`, { fields: [{ field, problem }] }),
  });
  const index = new Map<string, number>();
  for (const [i, step] of steps.entries()) {
    if (index.has(step.id)) return fail(`steps.${i}.id`, `duplicate step id "${step.id}"`);
    index.set(step.id, i);
  }
  for (const [i, step] of steps.entries()) {
    for (const dep of step.depends_on ?? []) {
      if (dep === step.id) return fail(`steps.${i}.depends_on`, `step "${step.id}" depends on itself`);
      if (!index.has(dep)) {
        return fail(
          `steps.${i}.depends_on`,
          `unknown step "${dep}" (steps are: ${[...index.keys()].join(", ")})`,
        );
      }
    }
  }
  const remaining = new Map(steps.map((s) => [s.id, new Set(s.depends_on ?? [])]));
  const order: WorkflowStepSpec[] = [];
  while (order.length < steps.length) {
    const next = steps.find((s) => remaining.get(s.id)?.size === 0);
    if (!next) {
      const cycle = findCycle(steps);
      const first = steps.findIndex((s) => s.id === cycle[0]);
      return fail(`steps.${first}.depends_on`, `the dependencies form a cycle: ${cycle.join(" → ")}`);
    }
    order.push(next);
    remaining.delete(next.id);
    for (const deps of remaining.values()) deps.delete(next.id);
  }
  return { ok: true, order };
}

/** One cycle among the steps, as ids with the first repeated at the end (the graph is known to have one). */
function findCycle(steps: readonly WorkflowStepSpec[]): string[] {
  const deps = new Map(steps.map((s) => [s.id, s.depends_on ?? []]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "open") return [...path.slice(path.indexOf(id)), id];
    state.set(id, "open");
    path.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    path.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const step of steps) {
    const found = visit(step.id);
    if (found) return found;
  }
  return [];
}
