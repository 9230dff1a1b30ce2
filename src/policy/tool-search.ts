import {
  TOOL_SEARCH_MAX_RESULTS,
  type ToolDescriptor,
  type ToolSearchMatch,
  type ToolSearchOutcome,
} from "../catalog/index.js";
import type { ToolPolicyResolution } from "./resolve-tool-policy.js";

/**
 * Searches `corpus` (seed 003 ToolSearch). The query's form alone decides the mode — the search does
 * not guess intent:
 * - `select:A,B` — exactly those names; names not in the corpus are reported in `notFound`;
 * - the whole query equal to a tool name — that tool;
 * - a query starting with `mcp__` — every tool whose name starts with it;
 * - anything else — keywords: `+word` must appear in the name, a keyword or the description; other
 *   words only rank. Name hits weigh most, then declared keywords, then the description.
 * Results are ordered by score, then name; at most `maxResults` (1–20) except for select.
 */
export function searchTools(
  query: string,
  corpus: readonly ToolDescriptor[],
  maxResults: number,
): ToolSearchOutcome {
  const limit = Math.max(1, Math.min(TOOL_SEARCH_MAX_RESULTS, Math.floor(maxResults) || 1));
  const q = query.trim();
  const byName = new Map(corpus.map((d) => [d.name, d]));
  if (q.toLowerCase().startsWith("select:")) {
    const names = [
      ...new Set(
        q
          .slice("select:".length)
          .split(",")
          .map((n) => n.trim())
          .filter((n) => n !== ""),
      ),
    ];
    const found = names.filter((n) => byName.has(n)).slice(0, TOOL_SEARCH_MAX_RESULTS);
    return {
      mode: "select",
      matches: found.map((n) => match(byName.get(n) as ToolDescriptor, 0)),
      notFound: names.filter((n) => !found.includes(n)),
    };
  }
  const exact = byName.get(q) ?? corpus.find((d) => d.name.toLowerCase() === q.toLowerCase());
  if (exact) return { mode: "exact", matches: [match(exact, 0)], notFound: [] };
  if (q.startsWith("mcp__")) {
    const matches = corpus
      .filter((d) => d.name.startsWith(q))
      .sort((a, b) => compareNames(a.name, b.name))
      .slice(0, limit)
      .map((d) => match(d, 0));
    return { mode: "prefix", matches, notFound: [] };
  }
  return { mode: "keywords", matches: keywordSearch(q, corpus, limit), notFound: [] };
}

/**
 * tool_search over a resolved policy: only its deferred tools are searched, so a tool that any
 * layer removed can never come back this way.
 */
export function searchDeferredTools(
  resolution: ToolPolicyResolution,
  query: string,
  maxResults: number,
): ToolSearchOutcome {
  const corpus: ToolDescriptor[] = [];
  for (const name of resolution.deferred) {
    const descriptor = resolution.loadable.get(name);
    if (descriptor) corpus.push(descriptor);
  }
  return searchTools(query, corpus, maxResults);
}

function keywordSearch(query: string, corpus: readonly ToolDescriptor[], limit: number): ToolSearchMatch[] {
  const required: string[] = [];
  const optional: string[] = [];
  for (const raw of query.toLowerCase().split(/\s+/)) {
    if (raw.startsWith("+")) {
      if (raw.length > 1) required.push(raw.slice(1));
    } else if (raw !== "") {
      optional.push(raw);
    }
  }
  if (required.length === 0 && optional.length === 0) return [];
  const scored: ToolSearchMatch[] = [];
  for (const d of corpus) {
    const text = searchText(d);
    if (!required.every((term) => termScore(term, text) > 0)) continue;
    let score = 0;
    for (const term of [...required, ...optional]) score += termScore(term, text);
    if (score > 0) scored.push(match(d, score));
  }
  return scored.sort((a, b) => b.score - a.score || compareNames(a.name, b.name)).slice(0, limit);
}

interface SearchText {
  name: string;
  nameParts: readonly string[];
  keywords: readonly string[];
  description: string;
  descriptionWords: readonly string[];
}

function searchText(d: ToolDescriptor): SearchText {
  const name = d.name.toLowerCase();
  const description = d.description.toLowerCase();
  return {
    name,
    nameParts: name.split(/_+/).filter((p) => p !== ""),
    keywords: d.keywords.map((k) => k.toLowerCase()),
    description,
    descriptionWords: description.split(/[^a-z0-9]+/).filter((w) => w !== ""),
  };
}

function termScore(term: string, t: SearchText): number {
  let score = 0;
  if (t.nameParts.includes(term)) score += 10;
  else if (t.name.includes(term)) score += 5;
  if (t.keywords.includes(term)) score += 4;
  else if (t.keywords.some((k) => k.includes(term))) score += 2;
  if (t.descriptionWords.includes(term)) score += 2;
  else if (t.description.includes(term)) score += 1;
  return score;
}

function match(d: ToolDescriptor, score: number): ToolSearchMatch {
  return { name: d.name, description: d.description, score };
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
