import type { z } from "zod";
import { isKnownTool, parseMcpToolName, RISK_LEVELS, TOOL_CATALOG } from "../catalog/index.js";
import { isToolGroupEntry, toolGroupProblem } from "../policy/index.js";
import { addConfigIssue } from "./config-issue.js";

/** The config keys that name tools (see {@link checkToolNames}). */
export interface ToolNameLists {
  readonly tools: {
    readonly allow: readonly string[];
    readonly also_allow: readonly string[];
    readonly deny: readonly string[];
    readonly deferred: readonly string[];
    readonly credentials: Readonly<Record<string, unknown>>;
    readonly mcp: { readonly servers: Readonly<Record<string, unknown>> };
  };
  readonly permissions: {
    readonly approval: {
      readonly auto_approve: readonly string[];
      readonly required_approvals: Readonly<Record<string, number>>;
    };
  };
  readonly agents: Readonly<
    Record<
      string,
      {
        readonly allowed_tools?: readonly string[] | undefined;
        readonly live_output_chars?: Readonly<Record<string, number>> | undefined;
      }
    >
  >;
}

/** The tool lists whose entries are patterns (a name, `prefix*`, a group) and already group-checked. */
const PATTERN_LISTS = ["allow", "also_allow", "deny", "deferred"] as const;

type Path = (string | number)[];

/**
 * Every tool a config names must exist: a catalog tool, or `mcp__<server>__<tool>` of a server in
 * `tools.mcp.servers`. A name that matches nothing is a typo, and a deny or an allow that silently
 * does nothing is a hole or a run that fails later. Lists of patterns (`tools.allow`, ...,
 * `agents.<name>.allowed_tools`) also take `prefix*` (which must match some tool) and groups; keys
 * (`tools.credentials`, `live_output_chars`, `auto_approve`) are compared as exact names.
 */
export function checkToolNames(config: ToolNameLists, ctx: z.RefinementCtx): void {
  const servers = Object.keys(config.tools.mcp.servers);
  const report = (path: Path, problem: string | undefined, value?: string) => {
    // A group's message names the entry itself; the others read on from the value.
    if (problem) addConfigIssue(ctx, path, value, problem);
  };
  // Group entries of these four lists are checked in schema.ts; here the plain names and prefixes.
  for (const list of PATTERN_LISTS) {
    config.tools[list].forEach((entry, i) => {
      if (!isToolGroupEntry(entry)) report(["tools", list, i], toolPatternProblem(entry, servers), entry);
    });
  }
  for (const [name, agent] of Object.entries(config.agents)) {
    agent.allowed_tools?.forEach((entry, i) => {
      const path = ["agents", name, "allowed_tools", i];
      if (isToolGroupEntry(entry)) report(path, toolGroupProblem(entry, servers));
      else report(path, toolPatternProblem(entry, servers), entry);
    });
    for (const tool of Object.keys(agent.live_output_chars ?? {}))
      report(["agents", name, "live_output_chars", tool], toolNameProblem(tool, servers), tool);
  }
  config.permissions.approval.auto_approve.forEach((entry, i) => {
    report(["permissions", "approval", "auto_approve", i], toolNameProblem(entry, servers, "exact"), entry);
  });
  for (const key of Object.keys(config.permissions.approval.required_approvals)) {
    if ((RISK_LEVELS as readonly string[]).includes(key)) continue;
    const problem = toolNameProblem(key, servers, "exact");
    report(
      ["permissions", "approval", "required_approvals", key],
      problem && `${problem}; a key may also be a risk level (${RISK_LEVELS.join(", ")})`,
      key,
    );
  }
  for (const tool of Object.keys(config.tools.credentials))
    report(["tools", "credentials", tool], toolNameProblem(tool, servers, "exact"), tool);
}

/** What a tool entry may be, for messages. */
function allowedNames(servers: readonly string[], patterns: boolean): string {
  const mcp = `mcp__<server>__<tool> for a server in tools.mcp.servers (${
    servers.length ? `configured: ${servers.join(", ")}` : "none is configured"
  })`;
  return patterns
    ? `allowed: a catalog tool name, a prefix* matching one, group:<section>, or ${mcp}`
    : `allowed: a catalog tool name (exact, no * or group:), or ${mcp}`;
}

/** Why `name` names no tool, or undefined when it names one. */
function toolNameProblem(name: string, servers: readonly string[], mode?: "exact"): string | undefined {
  if (isKnownTool(name)) return undefined;
  const mcp = parseMcpToolName(name);
  if (mcp && servers.includes(mcp.server)) return undefined;
  const patterns = mode !== "exact";
  if (mcp)
    return `names MCP server "${mcp.server}", which is not in tools.mcp.servers; ${allowedNames(servers, patterns)}`;
  const near = closestTool(name);
  return `is not a tool in the catalog${near ? ` (did you mean ${near}?)` : ""}; ${allowedNames(servers, patterns)}`;
}

/** Like {@link toolNameProblem}, but a `prefix*` entry is fine when it matches some tool. */
function toolPatternProblem(entry: string, servers: readonly string[]): string | undefined {
  if (!entry.endsWith("*")) return toolNameProblem(entry, servers);
  const prefix = entry.slice(0, -1);
  const names = [...TOOL_CATALOG.map((e) => e.name), ...servers.map((s) => `mcp__${s}__`)];
  // An MCP server's tools are not known until it is asked, so a prefix inside its namespace counts.
  const matches =
    names.some((n) => n.startsWith(prefix)) || servers.some((s) => prefix.startsWith(`mcp__${s}__`));
  return matches ? undefined : `matches no tool in the catalog; ${allowedNames(servers, true)}`;
}

/** The catalog tool nearest to a misspelling (edit distance at most 2), or undefined. */
function closestTool(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const entry of TOOL_CATALOG) {
    const distance = editDistance(name, entry.name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: entry.name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}
