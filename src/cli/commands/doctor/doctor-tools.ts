import type { EchoRunnerConfig } from "../../../config/index.js";
import type { DeepReadonly } from "../../../shared/index.js";
import { toolRows, toolsFromConfig } from "../tools/index.js";
import { type DoctorCheck, fail, ok, warn } from "./doctor-check.js";

/**
 * Readiness of every tool a worker built from this config has — the same tool set `tools list`
 * and the worker build, MCP servers included. A built-in tool that is not ready is a warning (the
 * policy hides it from agents, with the reason); a configured MCP server or tool that is absent
 * fails (the operator asked for it). Reserved and unimplemented catalog names are not checked.
 */
export async function checkTools(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  baseDir: string,
): Promise<DoctorCheck[]> {
  // A variable, not a literal: the options of toolsFromConfig grow as tools do.
  const options = { mcp: true, baseDir };
  const listed = await toolsFromConfig(config, env, options);
  try {
    const checks: DoctorCheck[] = [];
    for (const row of toolRows(listed, { networkAvailable: true })) {
      const name = `tool:${row.name}`;
      switch (row.status) {
        case "ready":
        case "disabled":
          checks.push(ok(name, row.status === "ready" ? "ready" : `disabled: ${row.reason}`));
          break;
        case "not_ready":
          checks.push(
            row.section === "mcp"
              ? fail(
                  name,
                  `not available: ${row.reason}`,
                  "start the MCP server or fix its entry in tools.mcp.servers (or remove the entry)",
                )
              : warn(
                  name,
                  `not ready: ${row.reason}`,
                  "configure what the reason names (and its secret variable) if agents need this tool; otherwise nothing to do, agents are not offered it",
                ),
          );
          break;
        case "reserved":
        case "not_implemented":
          break;
        default:
          row.status satisfies never;
      }
    }
    return checks;
  } finally {
    await listed.close();
  }
}
