import { describe, expect, it } from "vitest";
import { type FlowStep, flowShape } from "./flow-shape.js";

const shape = (steps: FlowStep[]) => {
  const s = flowShape(steps);
  return { kind: s.kind, root: s.root, children: Object.fromEntries(s.children) };
};

describe("flowShape", () => {
  it("maps dependencies that form a tree onto the flow, so branches run in parallel", () => {
    expect(
      shape([
        { runId: "a" },
        { runId: "b" },
        { runId: "c", dependsOn: ["a", "b"] },
        { runId: "d", dependsOn: ["c"] },
      ]),
    ).toEqual({ kind: "tree", root: "d", children: { a: [], b: [], c: ["a", "b"], d: ["c"] } });
  });

  it.each<[string, FlowStep[]]>([
    ["steps without dependencies run in the order given", [{ runId: "a" }, { runId: "b" }, { runId: "c" }]],
    [
      "a step two others need (a diamond) becomes a chain",
      [
        { runId: "a" },
        { runId: "b", dependsOn: ["a"] },
        { runId: "c", dependsOn: ["a"] },
        { runId: "d", dependsOn: ["b", "c"] },
      ],
    ],
  ])("%s", (_name, steps) => {
    const s = shape(steps);
    expect(s.kind).toBe("chain");
    expect(s.root).toBe(steps.at(-1)?.runId);
    for (const [i, step] of steps.entries()) {
      expect(s.children[step.runId]).toEqual(i === 0 ? [] : [steps[i - 1]?.runId]);
    }
  });
});
