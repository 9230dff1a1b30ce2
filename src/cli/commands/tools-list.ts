import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { extraToolRuntimeFromConfig, mcpServersFromConfig } from "../../../workers/tools-from-config.js";
import { type EchoRunnerConfig, loadConfig } from "../../config/index.js";
import { createLogger } from "../../logging/index.js";
import { systemHostResolver } from "../../platform/index.js";
import { type DeepReadonly, systemClock } from "../../shared/index.js";
import {
  type AnyTool,
  type ConnectedMcpServers,
  capabilitiesOf,
  catalogEntry,
  connectMcpServers,
  createBuiltinTools,
  createExtraTools,
  describeTool,
  ProcessSupervisor,
  profilesOf,
  riskOf,
  TOOL_CATALOG,
  type ToolEnvironment,
} from "../../tools/index.js";
import { type CliCommand, EXIT } from "../io.js";

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
    if (entry?.alwaysLoaded && !tool) {
      return { ...base, status: "ready", reason: "built for each run by the agent loop (always loaded)" };
    }
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
 * The tools a worker built from this config would have: the built-in tools and the web, knowledge,
 * skills, media and messaging tools (over a Redis client that never connects: listing reads only
 * readiness), and with `mcp` the configured MCP servers' tools (connecting to them).
 */
export async function toolsFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  options: { mcp: boolean },
): Promise<ListedTools> {
  const redis = new Redis(config.redis.url, { lazyConnect: true });
  const logger = createLogger({ level: "silent", format: "json" });
  const processes = new ProcessSupervisor({ clock: systemClock, logger, reaper: false, exitHook: false });
  const builtin = createBuiltinTools({
    pathFence: () => {
      throw new Error("tools list reads readiness only; no path is checked");
    },
    redis,
    keyPrefix: config.redis.key_prefix,
    runStateRetentionMs: config.retention.journal_days * 24 * 3600 * 1000,
    spill: { read: async () => undefined },
    processes,
    execHost: config.tools.exec.host,
    env,
    clock: systemClock,
  });
  const extra = createExtraTools(
    extraToolRuntimeFromConfig(config, { env, resolver: systemHostResolver(), redis, clock: systemClock }),
  );
  let mcp: ConnectedMcpServers | undefined;
  if (options.mcp)
    mcp = await connectMcpServers(mcpServersFromConfig(config, env), { connectTimeoutMs: 20_000 });
  return {
    tools: [...builtin, ...extra, ...(mcp?.tools ?? [])],
    absent: (mcp?.absent ?? []).map((a) => ({
      name: a.tool ? `mcp__${a.server}__${a.tool}` : `mcp__${a.server}__*`,
      reason: a.reason,
    })),
    async close() {
      await mcp?.close();
      await processes.close();
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
    const { config } = await loadConfig({ configPath: values.config, env: io.env, cwd: io.cwd });
    const listed = await toolsFromConfig(config, io.env, { mcp: values.mcp });
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
