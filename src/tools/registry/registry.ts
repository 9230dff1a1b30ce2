import {
  type AnyTool,
  assertValidTool,
  describeTool,
  TOOL_CATALOG,
  type ToolDescriptor,
  type ToolEnvironment,
} from "../../catalog/index.js";
import { RunnerError } from "../../shared/index.js";

/** A declared or registered tool that is not present, and why. */
export interface AbsentTool {
  readonly name: string;
  readonly reason: string;
}

/** The tools present in this environment and those that are not (declared ≠ present). */
export interface PresentTools {
  /** Registered, ready and enabled, in registration order. */
  readonly present: readonly AnyTool[];
  /** Registered but not ready / not enabled, and catalog tools with no implementation. */
  readonly absent: readonly AbsentTool[];
}

/** The implementations a process has, by name (seed 002 `collectPresentOpenClawTools`). */
export interface ToolRegistry {
  /** The registered tool, or undefined. */
  get(name: string): AnyTool | undefined;
  /** Every registered tool, in registration order. */
  all(): readonly AnyTool[];
  /** Splits registered tools into present and absent with reasons (calls isReady / isEnabled). */
  present(env: ToolEnvironment): PresentTools;
  /** Descriptors of every registered tool for policy (absent ones are removed by its tool_state layer). */
  describe(env: ToolEnvironment): readonly ToolDescriptor[];
}

/**
 * Builds a registry from tool implementations. Every tool is checked (see `assertValidTool`: catalog
 * or mcp__ name, not reserved, valid declaration); a duplicate name is TOOL_DEFINITION_INVALID.
 */
export function createToolRegistry(tools: Iterable<AnyTool>): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    assertValidTool(tool);
    if (byName.has(tool.name)) {
      throw new RunnerError("TOOL_DEFINITION_INVALID", `Tool "${tool.name}" is registered twice`, {
        data: { tool: tool.name },
      });
    }
    byName.set(tool.name, tool);
  }
  const list = Object.freeze([...byName.values()]);
  return {
    get: (name) => byName.get(name),
    all: () => list,
    present(env) {
      const present: AnyTool[] = [];
      const absent: AbsentTool[] = [];
      for (const tool of list) {
        const { state } = describeTool(tool, env);
        if (state.ready && state.enabled) present.push(tool);
        else
          absent.push({ name: tool.name, reason: state.ready ? state.detail : `not ready: ${state.detail}` });
      }
      for (const entry of TOOL_CATALOG) {
        if (entry.reserved || byName.has(entry.name)) continue;
        absent.push({
          name: entry.name,
          reason: "declared in the catalog but no implementation is registered",
        });
      }
      return { present, absent };
    },
    describe: (env) => list.map((tool) => describeTool(tool, env)),
  };
}
