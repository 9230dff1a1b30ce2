import { type ToolFailure, toolFailure } from "../catalog/index.js";

/**
 * The `validation` failure of a multi-action tool (todo, memory, process) called without fields
 * its action needs, naming each field the way a schema failure does.
 */
export function missingForAction(fields: readonly string[], action: string): ToolFailure {
  const verb = fields.length === 1 ? "is" : "are";
  return toolFailure("validation", `${fields.join(", ")} ${verb} required when action is "${action}"`, {
    fields: fields.map((field) => ({ field, problem: `is required when action is "${action}"` })),
  });
}
