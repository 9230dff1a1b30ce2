import { describe, expect, it } from "vitest";
import type { ToolSearchOutcome } from "../../catalog/index.js";
import { createToolExecutionContext } from "./execution-context.js";
import { invokeTool } from "./invoke-tool.js";
import { createToolSearchTool } from "./tool-search-tool.js";

const ctx = createToolExecutionContext({
  executionId: "e",
  traceId: "t",
  sessionKey: "s",
  userId: "u",
  agentId: "a",
  call: { toolName: "tool_search", callIndex: 0, params: {} },
  allowedTools: ["tool_search"],
  channel: "cli",
  workspace: "/srv/work",
  unattended: false,
});

describe("tool_search tool", () => {
  it("is read-only, always callable, and passes the query and limit to the injected search", async () => {
    const calls: [string, number][] = [];
    const tool = createToolSearchTool((query, max): ToolSearchOutcome => {
      calls.push([query, max]);
      return {
        mode: "keywords",
        matches: [{ name: "web_fetch", description: "Fetch a web page", score: 3 }],
        notFound: [],
      };
    });
    expect(tool.name).toBe("tool_search");
    expect(tool.riskLevel).toBe("read_only");
    expect(tool.shouldDefer).toBe(false);
    const result = await invokeTool(tool, { query: "+web fetch" }, ctx);
    expect(calls).toEqual([["+web fetch", 5]]);
    expect(result).toMatchObject({ success: true, data: { mode: "keywords", load: ["web_fetch"] } });
    expect(result.output).toContain("- web_fetch: Fetch a web page");
  });

  it("says so when nothing matches and lists unavailable select: names", async () => {
    const tool = createToolSearchTool(() => ({ mode: "select", matches: [], notFound: ["exec"] }));
    const result = await invokeTool(tool, { query: "select:exec", max_results: 2 }, ctx);
    expect(result.output).toContain('No loadable tool matches "select:exec"');
    expect(result.output).toContain("Not available: exec");
  });

  it("rejects an empty query or a limit above 20 as a validation result", async () => {
    const tool = createToolSearchTool(() => ({ mode: "exact", matches: [], notFound: [] }));
    expect(await invokeTool(tool, { query: "" }, ctx)).toMatchObject({ errorKind: "validation" });
    expect(await invokeTool(tool, { query: "x", max_results: 21 }, ctx)).toMatchObject({
      errorKind: "validation",
    });
  });
});
