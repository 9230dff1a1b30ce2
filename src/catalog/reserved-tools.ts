import { isReservedTool } from "./catalog-lookup.js";
import { type ToolFailure, toolFailure } from "./tool-result.js";

/**
 * The result of a call to a reserved name (agents_list, agents_route): the catalog declares them
 * so no implementation can take the names, and the registry refuses to hold them, so a call can
 * only get this answer. Undefined for any other name. The agent loop returns it instead of the
 * generic "unknown or not present" denial, so the model learns the name will never work.
 */
export function reservedToolResult(name: string): ToolFailure | undefined {
  if (!isReservedTool(name)) return undefined;
  return toolFailure(
    "denied",
    `Tool "${name}" is reserved: it is declared in the catalog but not implemented, and never callable`,
    { reserved: true },
  );
}
