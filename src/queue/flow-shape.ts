/** A step of a workflow as the flow sees it: its run id and the run ids it depends on. */
export interface FlowStep {
  readonly runId: string;
  readonly dependsOn?: readonly string[] | undefined;
}

/** The BullMQ flow tree of a workflow: its root (runs last) and each step's children (run first). */
export interface FlowShape {
  readonly root: string;
  readonly children: ReadonlyMap<string, readonly string[]>;
  /** "tree": branches run in parallel; "chain": one step at a time in the given order. */
  readonly kind: "tree" | "chain";
}

/**
 * A BullMQ flow is a tree (a job has at most one parent, and runs after all its children). When
 * the dependencies already form one — every step is needed by at most one other, and one step is
 * needed by none — they map onto it directly and independent branches run in parallel. Otherwise
 * (a step two others need, or several final steps) the steps, already in dependency order, become a
 * chain: each the parent of the one before, which keeps every dependency and runs one at a time.
 */
export function flowShape(ordered: readonly FlowStep[]): FlowShape {
  const neededBy = new Map(ordered.map((s) => [s.runId, 0]));
  for (const step of ordered)
    for (const dep of step.dependsOn ?? []) neededBy.set(dep, (neededBy.get(dep) ?? 0) + 1);
  const finals = ordered.filter((s) => neededBy.get(s.runId) === 0);
  const isTree = finals.length === 1 && [...neededBy.values()].every((n) => n <= 1);
  if (isTree && finals[0]) {
    return {
      root: finals[0].runId,
      children: new Map(ordered.map((s) => [s.runId, [...(s.dependsOn ?? [])]])),
      kind: "tree",
    };
  }
  const children = new Map<string, string[]>();
  ordered.forEach((s, i) => {
    const before = ordered[i - 1];
    children.set(s.runId, before ? [before.runId] : []);
  });
  return { root: ordered.at(-1)?.runId ?? "", children, kind: "chain" };
}
