import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import {
  type AnyTool,
  capabilitiesOf,
  catalogEntry,
  describeTool,
  profilesOf,
  riskOf,
  TOOL_CATALOG,
  type ToolEnvironment,
} from "../../../catalog/index.js";
import type { EchoRunnerConfig } from "../../../config/index.js";
import { createLogger } from "../../../logging/index.js";
import { buildToolSet } from "../../../runtime/index.js";
import type { DeepReadonly } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { loadCliConfig } from "../shared/index.js";

/** Where a listed tool stands in this process. */
export const TOOL_STATUSES = ["ready", "not_ready", "disabled", "reserved", "not_implemented"] as const;
export type ToolStatus = (typeof TOOL_STATUSES)[number];

/** One line of `tools list`. */
export interface ToolRow {
  readonly name: string;
  /** Catalog section, or "mcp" for an external tool. */
  readonly section: string;
  readonly risk: string;
  readonly capabilities: readonly string[];
  readonly profiles: readonly string[];
  readonly status: ToolStatus;
  /** Why, for every status but ready (and what ready means for the tool). */
  readonly reason: string;
}

/** The implementations `tools list` inspects, and how to release them. */
export interface ListedTools {
  readonly tools: readonly AnyTool[];
  /** External servers or tools that could not be adopted. */
  readonly absent: readonly { name: string; reason: string }[];
  close(): Promise<void>;
}

/**
 * Every catalog tool (and, with external servers connected, every `mcp__` tool) with its risk,
 * capabilities, profiles and state: reserved names, tools without an implementation in this build,
 * and implemented ones with their own readiness and reason.
 */
export function toolRows(listed: Pick<ListedTools, "tools" | "absent">, env: ToolEnvironment): ToolRow[] {
  const byName = new Map(listed.tools.map((t) => [t.name, t]));
  const row = (name: string, section: string, tool: AnyTool | undefined): ToolRow => {
    const base = {
      name,
      section,
      risk: riskOf(name, tool?.riskLevel),
      capabilities: capabilitiesOf(name, tool?.capabilities ?? []),
      profiles: profilesOf(name),
    };
    const entry = catalogEntry(name);
    if (entry?.reserved)
      return { ...base, status: "reserved", reason: "declared in the catalog, never callable" };
    if (!tool)
      return { ...base, status: "not_implemented", reason: "no implementation is registered in this build" };
    const { state } = describeTool(tool, env);
    if (!state.ready) return { ...base, status: "not_ready", reason: state.detail };
    if (!state.enabled) return { ...base, status: "disabled", reason: state.detail };
    return { ...base, status: "ready", reason: state.detail };
  };
  const rows = TOOL_CATALOG.map((e) => row(e.name, e.section, byName.get(e.name)));
  for (const tool of listed.tools) if (!catalogEntry(tool.name)) rows.push(row(tool.name, "mcp", tool));
  for (const absent of listed.absent) {
    rows.push({
      name: absent.name,
      section: "mcp",
      risk: "exec",
      capabilities: ["mcp.call"],
      profiles: ["full"],
      status: "not_ready",
      reason: absent.reason,
    });
  }
  return rows;
}

/**
 * The tools a worker built from this config has — the same function builds both (buildToolSet),
 * over a Redis client that never connects (listing reads only readiness) and, with `mcp`, the
 * configured MCP servers' tools (connecting to them).
 */
export async function toolsFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  options: { mcp: boolean; baseDir: string },
): Promise<ListedTools> {
  const redis = new Redis(config.redis.url, { lazyConnect: true });
  const logger = createLogger({ level: "silent", format: "json" });
  const set = await buildToolSet(
    { config, env, redis, logger, baseDir: options.baseDir, protectedPaths: [] },
    { mcp: options.mcp, supervise: false, mcpConnectTimeoutMs: 20_000 },
  );
  return {
    tools: set.tools,
    absent: set.absent,
    async close() {
      await set.close();
      redis.disconnect();
    },
  };
}

/** `echo-runner tools list [--json] [--mcp]`: every tool with risk, capabilities, profiles and readiness. */
export const toolsListCommand: CliCommand = {
  words: ["tools", "list"],
  summary:
    "list every tool with its risk, capabilities, profiles and readiness (with the reason when not ready)",
  usage:
    "echo-runner tools list [--config FILE] [--json] [--mcp]\n" +
    "  --mcp   also connect to the MCP servers of tools.mcp.servers and list their tools",
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        json: { type: "boolean", default: false },
        mcp: { type: "boolean", default: false },
      },
      allowPositionals: false,
    });
    const loaded = await loadCliConfig(io, values.config);
    // Relative config paths (the skills directory) are read from the project file's folder, as `start` does.
    const project = loaded.sources.find((s) => s.kind === "project");
    const listed = await toolsFromConfig(loaded.config, io.env, {
      mcp: values.mcp,
      baseDir: project ? dirname(project.origin) : io.cwd,
    });
    try {
      const rows = toolRows(listed, { networkAvailable: true });
      io.stdout(values.json ? `${JSON.stringify(rows, null, 2)}\n` : renderRows(rows));
    } finally {
      await listed.close();
    }
    return EXIT.ok;
  },
};

function renderRows(rows: readonly ToolRow[]): string {
  const table = rows.map((r) => [
    r.section,
    r.name,
    r.risk,
    r.profiles.join(","),
    r.capabilities.join(",") || "-",
    r.status === "ready" ? "ready" : `${r.status.replace("_", " ")}: ${r.reason}`,
  ]);
  const header = ["SECTION", "TOOL", "RISK", "PROFILES", "CAPABILITIES", "STATUS"];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((cells) => (cells[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const counts = TOOL_STATUSES.map(
    (s) => `${rows.filter((r) => r.status === s).length} ${s.replace("_", " ")}`,
  );
  return `${[line(header), ...table.map(line)].join("\n")}\n\n${rows.length} tools: ${counts.join(", ")}\n`;
}
