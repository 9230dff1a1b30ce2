/**
 * The contract between the tool_search tool (src/tools) and policy's search (src/policy): what a
 * query finds. Kept here so policy reads it without loading any tool implementation.
 */

/** How a tool_search query was read (seed 003): the framework dispatches on the query's form only. */
export const TOOL_SEARCH_MODES = ["select", "exact", "prefix", "keywords"] as const;
export type ToolSearchMode = (typeof TOOL_SEARCH_MODES)[number];

/** One tool found by tool_search. */
export interface ToolSearchMatch {
  readonly name: string;
  readonly description: string;
  /** Keyword mode: the score (higher first); other modes: 0. */
  readonly score: number;
}

/** What a search found; the agent loop loads `matches` into the model's tool list. */
export interface ToolSearchOutcome {
  readonly mode: ToolSearchMode;
  readonly matches: readonly ToolSearchMatch[];
  /** `select:` names that are not loadable (removed by policy, unknown, or already visible). */
  readonly notFound: readonly string[];
}

/** The search the tool runs: policy's search over the deferred tools of the resolved policy. */
export type ToolSearchFn = (query: string, maxResults: number) => ToolSearchOutcome;

/** Default and upper bound of `max_results`. */
export const TOOL_SEARCH_DEFAULT_RESULTS = 5;
export const TOOL_SEARCH_MAX_RESULTS = 20;
