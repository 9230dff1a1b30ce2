import Type from "typebox";
import {
  defineTool,
  TOOL_SEARCH_DEFAULT_RESULTS,
  TOOL_SEARCH_MAX_RESULTS,
  type Tool,
  type ToolSearchFn,
  toolSuccess,
} from "../../catalog/index.js";
import { RunnerError } from "../../shared/index.js";

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

/**
 * The worker's tool_search: present, so that policy keeps it (and the tools it loads) for a run,
 * but bound to no run's policy, so it refuses to search. The agent loop replaces it in each run with
 * one over that run's deferred tools (src/agent/execution/run-tools.ts); reaching this one is a bug.
 */
export function unboundToolSearchTool(): Tool<typeof ToolSearchParams> {
  return createToolSearchTool(() => {
    throw new RunnerError(
      "INTERNAL",
      "tool_search searches the deferred tools of one run, and this one is bound to none: the agent loop builds it for each run",
    );
  });
}
