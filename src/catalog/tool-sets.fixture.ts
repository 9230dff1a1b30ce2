import { RUN_LOOP_TOOLS, type RunLoopTool, SUBAGENT_TOOLS, type SubagentTool } from "./tool-sets.js";

/** True for the tools the run loop carries out itself. */
export function isRunLoopTool(name: string): name is RunLoopTool {
  return (RUN_LOOP_TOOLS as readonly string[]).includes(name);
}

/** True for the tools that start or manage sub-agent runs. */
export function isSubagentTool(name: string): name is SubagentTool {
  return (SUBAGENT_TOOLS as readonly string[]).includes(name);
}
