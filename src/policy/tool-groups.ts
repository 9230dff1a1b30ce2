import { catalogEntry, parseMcpToolName, TOOL_SECTIONS, type ToolSection } from "../catalog/index.js";

/**
 * Tool groups in `tools.allow` / `tools.also_allow` / `tools.deny` (seed 002's plugin groups,
 * `expandPolicyWithPluginGroups`): `group:<section>` stands for the catalog's tools of that section
 * (`group:fs`, `group:web`, ...), `group:mcp:<server>` for every tool of that configured MCP server
 * (`mcp__<server>__*`). Groups are derived from the catalog, never a second hand-written list.
 */
export const TOOL_GROUP_PREFIX = "group:";

/** A parsed group entry. */
export type ToolGroup =
  | { readonly kind: "section"; readonly section: ToolSection }
  | { readonly kind: "mcp"; readonly server: string };

/** True when a list entry is meant as a group (starts with `group:`), valid or not. */
export function isToolGroupEntry(entry: string): boolean {
  return entry.startsWith(TOOL_GROUP_PREFIX);
}

/** The group an entry names, or undefined when it is not a well-formed group. */
export function parseToolGroup(entry: string): ToolGroup | undefined {
  if (!isToolGroupEntry(entry)) return undefined;
  const rest = entry.slice(TOOL_GROUP_PREFIX.length);
  if (rest.startsWith("mcp:")) {
    const server = rest.slice("mcp:".length);
    return /^[a-zA-Z0-9_-]+$/.test(server) ? { kind: "mcp", server } : undefined;
  }
  return (TOOL_SECTIONS as readonly string[]).includes(rest)
    ? { kind: "section", section: rest as ToolSection }
    : undefined;
}

/** True when `name` belongs to the group. A malformed group matches nothing. */
export function matchesToolGroup(entry: string, name: string): boolean {
  const group = parseToolGroup(entry);
  if (!group) return false;
  if (group.kind === "section") return catalogEntry(name)?.section === group.section;
  return parseMcpToolName(name)?.server === group.server;
}

/** Every group a config may name, given its MCP servers (for error messages and help). */
export function knownToolGroups(mcpServers: readonly string[]): string[] {
  return [
    ...TOOL_SECTIONS.map((s) => `${TOOL_GROUP_PREFIX}${s}`),
    ...mcpServers.map((s) => `${TOOL_GROUP_PREFIX}mcp:${s}`),
  ];
}

/**
 * Why a group entry is not allowed, or undefined when it is fine (or not a group): an unknown
 * section, or an MCP server that is not configured. The message names the groups allowed.
 */
export function toolGroupProblem(entry: string, mcpServers: readonly string[]): string | undefined {
  if (!isToolGroupEntry(entry)) return undefined;
  const group = parseToolGroup(entry);
  if (group?.kind === "section") return undefined;
  if (group?.kind === "mcp" && mcpServers.includes(group.server)) return undefined;
  const what =
    group?.kind === "mcp"
      ? `names MCP server "${group.server}", which is not in tools.mcp.servers`
      : "is not a tool group";
  return `${JSON.stringify(entry)} ${what}; the groups are ${knownToolGroups(mcpServers).join(", ")}${
    mcpServers.length === 0
      ? " (and group:mcp:<server> for a server in tools.mcp.servers; none is configured)"
      : ""
  }`;
}
