import type { Capability } from "./capabilities.js";
import { type CatalogEntry, TOOL_CATALOG, type ToolName } from "./catalog.js";
import { TOOL_PROFILES, type ToolProfile } from "./profiles.js";
import { maxRisk, type RiskLevel } from "./risk.js";

/**
 * Lookups derived from the catalog (TOOL_CATALOG), precomputed once into Maps so a policy decision never
 * scans the table.
 */

/** `mcp__<server>__<tool>`: server segments joined by single underscores, then the tool's name. */
const MCP_NAME = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)__([A-Za-z0-9_-]+)$/;

/**
 * The name of an external (MCP) tool. These names are open: any server and tool the operator
 * configures, so they stay a pattern, not a list.
 */
export type McpToolName = `mcp__${string}__${string}`;

const BY_NAME: ReadonlyMap<string, CatalogEntry> = indexCatalog(TOOL_CATALOG);

const PROFILES_BY_NAME: ReadonlyMap<string, readonly ToolProfile[]> = new Map(
  TOOL_CATALOG.map((e) => [e.name, Object.freeze(TOOL_PROFILES.slice(TOOL_PROFILES.indexOf(e.minProfile)))]),
);

const TOOLS_BY_PROFILE: ReadonlyMap<ToolProfile, ReadonlySet<ToolName>> = new Map(
  TOOL_PROFILES.map((p) => [
    p,
    new Set(TOOL_CATALOG.filter((e) => profileIncludes(p, e)).map((e) => e.name)),
  ]),
);

const MCP_ONLY_FULL: readonly ToolProfile[] = Object.freeze(["full"]);
const MCP_CAPABILITY: readonly Capability[] = Object.freeze(["mcp.call"]);

/** The catalog entry of a declared tool (reserved ones included), or undefined. */
export function catalogEntry(name: string): CatalogEntry | undefined {
  return BY_NAME.get(name);
}

/** True when the catalog declares `name` (reserved names included: they are known, not callable). */
export function isKnownTool(name: string): name is ToolName {
  return BY_NAME.has(name);
}

/** True for the catalog's reserved names (agents_list, agents_route): declared, never callable. */
export function isReservedTool(name: string): boolean {
  return BY_NAME.get(name)?.reserved === true;
}

/** True when `name` is a well-formed external tool name `mcp__<server>__<tool>`. */
export function isMcpToolName(name: string): name is McpToolName {
  return MCP_NAME.test(name);
}

/** The server and tool of an external tool name, or undefined when it is not one. */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  const match = MCP_NAME.exec(name);
  return match ? { server: match[1] as string, tool: match[2] as string } : undefined;
}

/** The external tool name of `tool` on `server` (validated: throws TypeError when malformed). */
export function mcpToolName(server: string, tool: string): McpToolName {
  const name: McpToolName = `mcp__${server}__${tool}`;
  const parsed = parseMcpToolName(name);
  // The round trip catches a server name with "__" in it, which would be read back as another split.
  if (parsed?.server !== server || parsed.tool !== tool)
    throw new TypeError(`not a valid MCP tool name: ${JSON.stringify(name)}`);
  return name;
}

/**
 * The risk of a tool without looking at arguments: the more severe of its static risk and the
 * `declared` one. External (mcp__) tools have no static risk: their declared risk, else `exec`
 * (fail closed). A name that is neither declared nor external is `dangerous`: such a tool is never
 * callable, and any path that asks anyway must not treat it as harmless.
 */
export function riskOf(name: string, declared?: RiskLevel): RiskLevel {
  const entry = BY_NAME.get(name);
  if (entry) return declared === undefined ? entry.risk : maxRisk(entry.risk, declared);
  if (isMcpToolName(name)) return declared ?? "exec";
  return "dangerous";
}

/**
 * The capabilities of a tool: its static ones (external tools: `mcp.call`) plus any `declared`
 * ones. A declaration adds, never hides, a capability. Unknown names have only what is declared.
 */
export function capabilitiesOf(name: string, declared: readonly Capability[] = []): readonly Capability[] {
  const base = BY_NAME.get(name)?.capabilities ?? (isMcpToolName(name) ? MCP_CAPABILITY : []);
  if (declared.length === 0) return base;
  return [...new Set([...base, ...declared])];
}

/** The profiles containing a tool: catalog membership; external tools are only in `full` (seed: "*"). */
export function profilesOf(name: string): readonly ToolProfile[] {
  return PROFILES_BY_NAME.get(name) ?? (isMcpToolName(name) ? MCP_ONLY_FULL : []);
}

/** True when `profile` contains tool `name` (external tools: only `full`). */
export function isInProfile(profile: ToolProfile, name: string): boolean {
  if (isKnownTool(name) && TOOLS_BY_PROFILE.get(profile)?.has(name)) return true;
  return profile === "full" && isMcpToolName(name);
}

function profileIncludes(profile: ToolProfile, entry: CatalogEntry): boolean {
  return TOOL_PROFILES.indexOf(profile) >= TOOL_PROFILES.indexOf(entry.minProfile);
}

function indexCatalog(entries: readonly CatalogEntry[]): ReadonlyMap<string, CatalogEntry> {
  const map = new Map<string, CatalogEntry>();
  for (const e of entries) {
    // A duplicate would make every derived lookup ambiguous; fail at import time, not at call time.
    if (map.has(e.name)) throw new Error(`tool catalog declares "${e.name}" twice`);
    if (isMcpToolName(e.name)) throw new Error(`tool catalog entry "${e.name}" uses the mcp__ namespace`);
    map.set(e.name, e);
  }
  return map;
}
