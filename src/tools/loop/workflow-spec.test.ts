import { describe, expect, it } from "vitest";
import { orderWorkflowSteps, type WorkflowStepSpec } from "./workflow-spec.js";

const ids = (steps: WorkflowStepSpec[]) => {
  const r = orderWorkflowSteps(steps);
  return r.ok ? r.order.map((s) => s.id) : r.result.error;
};

describe("orderWorkflowSteps", () => {
  it.each<[string, WorkflowStepSpec[], string[] | string]>([
    [
      "keeps the given order without dependencies",
      [
        { id: "a", task: "x" },
        { id: "b", task: "y" },
      ],
      ["a", "b"],
    ],
    [
      "runs each step after what it depends on",
      [
        { id: "c", task: "x", depends_on: ["b"] },
        { id: "b", task: "x", depends_on: ["a"] },
        { id: "a", task: "x" },
      ],
      ["a", "b", "c"],
    ],
    [
      "orders a diamond",
      [
        { id: "d", task: "x", depends_on: ["b", "c"] },
        { id: "b", task: "x", depends_on: ["a"] },
        { id: "c", task: "x", depends_on: ["a"] },
        { id: "a", task: "x" },
      ],
      ["a", "b", "c", "d"],
    ],
    [
      "refuses a duplicate id",
      [
        { id: "a", task: "x" },
        { id: "a", task: "y" },
      ],
      'steps.1.id: duplicate step id "a"',
    ],
    [
      "refuses a self dependency",
      [{ id: "a", task: "x", depends_on: ["a"] }],
      'steps.0.depends_on: step "a" depends on itself',
    ],
    [
      "refuses an unknown dependency",
      [{ id: "a", task: "x", depends_on: ["nope"] }],
      'steps.0.depends_on: unknown step "nope" (steps are: a)',
    ],
    [
      "refuses a cycle, naming it",
      [
        { id: "a", task: "x" },
        { id: "b", task: "x", depends_on: ["a", "d"] },
        { id: "c", task: "x", depends_on: ["b"] },
        { id: "d", task: "x", depends_on: ["c"] },
      ],
      "steps.1.depends_on: the dependencies form a cycle: b → d → c → b",
    ],
  ])("%s", (_name, steps, expected) => {
    expect(ids(steps)).toEqual(expected);
  });

  it("names the field in the failure's data", () => {
    const r = orderWorkflowSteps([{ id: "a", task: "x", depends_on: ["z"] }]);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.result).toMatchObject({
        errorKind: "validation",
        data: { fields: [{ field: "steps.0.depends_on" }] },
      });
  });
});
