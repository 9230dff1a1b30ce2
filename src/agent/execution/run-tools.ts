import { searchDeferredTools, type ToolPolicyResolution } from "../../policy/index.js";
import { createToolSearchTool, type ToolRegistry } from "../../tools/index.js";

/**
 * The tools one run calls: the worker's registry, with `tool_search` built for this run (seed 003)
 * over the deferred tools that survived every policy layer for it. The worker registers a
 * tool_search too, so that policy sees it as present; that one refuses to search (it has no run's
 * policy), and a run never calls it: here it is replaced. A run whose policy removed tool_search
 * (no tool is deferred, or a layer denied it) gets the registry as it is.
 */
export function registryForRun(registry: ToolRegistry, policy: ToolPolicyResolution): ToolRegistry {
  if (!policy.visible.includes("tool_search") || registry.get("tool_search") === undefined) return registry;
  const search = createToolSearchTool((query, maxResults) => searchDeferredTools(policy, query, maxResults));
  return {
    get: (name) => (name === search.name ? search : registry.get(name)),
    all: () => registry.all().map((tool) => (tool.name === search.name ? search : tool)),
    present: (env) => registry.present(env),
    describe: (env) => registry.describe(env),
  };
}
