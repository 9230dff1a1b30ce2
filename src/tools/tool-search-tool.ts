import Type from "typebox";
import { defineTool } from "./define-tool.js";
import type { Tool } from "./tool.js";
import { toolSuccess } from "./tool-result.js";

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

const ToolSearchParams = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        "select:Name1,Name2 to load tools by name; an exact tool name; an mcp__<server> prefix; or keywords, where +word is required and other words rank",
    }),
    max_results: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TOOL_SEARCH_MAX_RESULTS,
        description: "Most tools to return (default 5)",
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The always-loaded `tool_search` tool (seed 003). It is thin: the search itself is policy's pure
 * function over the deferred tools that survived every policy layer, injected as `search`, so the
 * tool can never surface a tool that a layer removed. Its result's `data.load` lists the tools the
 * agent loop should now send to the model.
 */
export function createToolSearchTool(search: ToolSearchFn): Tool<typeof ToolSearchParams> {
  return defineTool({
    name: "tool_search",
    description:
      "Find and load tools that are not loaded yet. Query forms: select:A,B (exact names), an exact tool name, an mcp__server prefix, or keywords (+word = required).",
    parameters: ToolSearchParams,
    riskLevel: "read_only",
    idempotent: true,
    async execute(args) {
      const outcome = search(args.query, args.max_results ?? TOOL_SEARCH_DEFAULT_RESULTS);
      const load = outcome.matches.map((m) => m.name);
      const lines =
        load.length === 0
          ? [`No loadable tool matches ${JSON.stringify(args.query)}.`]
          : [
              `Loaded ${load.length} tool${load.length === 1 ? "" : "s"}:`,
              ...outcome.matches.map((m) => `- ${m.name}: ${m.description}`),
            ];
      if (outcome.notFound.length > 0) lines.push(`Not available: ${outcome.notFound.join(", ")}`);
      return toolSuccess(lines.join("\n"), { mode: outcome.mode, load, notFound: outcome.notFound });
    },
  });
}
