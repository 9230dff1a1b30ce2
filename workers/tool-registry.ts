import { createToolRegistry, type ToolRegistry } from "../src/tools/index.js";
import type { PartContext } from "./parts.js";

/**
 * The tools this process has. Tool implementations register here as they land (issue 9); a tool
 * the catalog declares without an implementation is simply not present, and the policy's
 * tool_state layer removes it with that reason.
 */
export async function toolRegistryFor(
  _ctx: PartContext,
): Promise<{ registry: ToolRegistry; close(): Promise<void> }> {
  return { registry: createToolRegistry([]), close: async () => undefined };
}
