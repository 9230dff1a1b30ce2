import { isToolGroupEntry, matchesToolGroup } from "./tool-groups.js";

/**
 * `tools.allow` / `tools.also_allow` / `tools.deny` from one or more config sources.
 *
 * An entry is a tool name, a prefix ending in `*` (`mcp__slack__*`; `*` alone is every tool), or a
 * group: `group:<section>` (the catalog's tools of that section) or `group:mcp:<server>`.
 * Across sources:
 * - deny is the union: any source's deny removes the tool, whatever any other source allows;
 * - allow: each source that sets a non-empty allow list replaces the profile with that list, and
 *   when several do, a tool must be in every one of them (the strictest reading; an empty list
 *   means "not set", seed 000);
 * - also_allow is the union, added to the profile or to the allow lists.
 */
export interface ToolListSource {
  /** Where the lists come from, for reasons ("default", "project", "user", "env", "config"). */
  readonly label: string;
  readonly allow?: readonly string[];
  readonly alsoAllow?: readonly string[];
  readonly deny?: readonly string[];
}

/** The merged lists, ready for matching. */
export interface MergedToolLists {
  /** Non-empty allow lists, each with its source; empty when no source sets one. */
  readonly allow: readonly { readonly label: string; readonly patterns: readonly string[] }[];
  /** also_allow entries with the sources that list them. */
  readonly alsoAllow: readonly PatternSources[];
  /** deny entries with the sources that list them. */
  readonly deny: readonly PatternSources[];
}

/** One pattern and the sources listing it. */
export interface PatternSources {
  readonly pattern: string;
  readonly labels: readonly string[];
}

/** Merges the lists of several sources (see the module comment). */
export function mergeToolLists(sources: readonly ToolListSource[]): MergedToolLists {
  const allow = sources
    .filter((s) => (s.allow?.length ?? 0) > 0)
    .map((s) => ({ label: s.label, patterns: [...(s.allow ?? [])] }));
  return {
    allow,
    alsoAllow: collect(sources, (s) => s.alsoAllow),
    deny: collect(sources, (s) => s.deny),
  };
}

/**
 * True when `name` matches a list entry: equal, a `prefix*` entry whose prefix it starts with, or a
 * group (`group:<section>`, `group:mcp:<server>`, see tool-groups.ts) it belongs to.
 */
export function matchesToolPattern(pattern: string, name: string): boolean {
  if (isToolGroupEntry(pattern)) return matchesToolGroup(pattern, name);
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

/** The first entry matching `name`, or undefined. */
export function findPattern(entries: readonly PatternSources[], name: string): PatternSources | undefined {
  return entries.find((e) => matchesToolPattern(e.pattern, name));
}

function collect(
  sources: readonly ToolListSource[],
  pick: (s: ToolListSource) => readonly string[] | undefined,
): PatternSources[] {
  const byPattern = new Map<string, string[]>();
  for (const source of sources) {
    for (const pattern of pick(source) ?? []) {
      const labels = byPattern.get(pattern) ?? [];
      if (!labels.includes(source.label)) labels.push(source.label);
      byPattern.set(pattern, labels);
    }
  }
  return [...byPattern].map(([pattern, labels]) => ({ pattern, labels }));
}
