import { Type } from "typebox";
import { stringify } from "yaml";
import { defineTool, toolSuccess } from "../src/catalog/index.js";

/**
 * The workload of the agent benchmarks (agent.bench.ts and agent-throughput-profile.ts measure the
 * same thing): a scripted agent whose every turn is one no-op read_file call.
 */

/** A read-only no-op under a catalog name: returns at once, touches nothing. */
export function noopReadTool() {
  return defineTool({
    name: "read_file",
    description: "Returns at once (benchmark tool)",
    parameters: Type.Object({ path: Type.String() }),
    capabilities: ["fs.read"],
    execute: async (args) => toolSuccess(`contents of ${args.path}`),
  });
}

/** The scripted model's turns: `calls` read_file calls, one a turn, then "done". */
export function readFilesScript(calls: number): string {
  const turns: unknown[] = [];
  for (let i = 0; i < calls; i++) {
    turns.push({ tool_calls: [{ name: "read_file", arguments: { path: `f${i}.txt` } }] });
  }
  turns.push({ content: "done" });
  return stringify(turns);
}
