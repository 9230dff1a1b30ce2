import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "../catalog/index.js";
import { resolveToolPolicy } from "./resolve-tool-policy.js";
import { catalogDescriptors, mcpDescriptor, openInput } from "./test-support.fixture.js";
import { searchDeferredTools, searchTools } from "./tool-search.js";

const corpus: ToolDescriptor[] = [
  mcpDescriptor("mcp__slack__send_message", {
    description: "Send a Slack message to a channel",
    keywords: ["chat"],
  }),
  mcpDescriptor("mcp__slack__list_channels", { description: "List Slack channels" }),
  mcpDescriptor("mcp__playwright__click", { description: "Click an element in the browser page" }),
  mcpDescriptor("mcp__playwright__navigate", { description: "Open a URL in the browser" }),
  mcpDescriptor("mcp__jupyter__run_cell", {
    description: "Run a notebook cell",
    keywords: ["notebook", "python"],
  }),
];
const names = (o: { matches: readonly { name: string }[] }) => o.matches.map((m) => m.name);

describe("searchTools", () => {
  it("select: returns exactly the named tools and reports the rest as not found", () => {
    const o = searchTools("select:mcp__playwright__click, mcp__jupyter__run_cell,exec", corpus, 5);
    expect(o.mode).toBe("select");
    expect(names(o)).toEqual(["mcp__playwright__click", "mcp__jupyter__run_cell"]);
    expect(o.notFound).toEqual(["exec"]);
  });

  it("an exact name returns that tool", () => {
    const o = searchTools("mcp__slack__send_message", corpus, 5);
    expect(o).toMatchObject({ mode: "exact" });
    expect(names(o)).toEqual(["mcp__slack__send_message"]);
  });

  it("an mcp__ prefix returns every tool of that server, sorted, within the limit", () => {
    expect(names(searchTools("mcp__slack", corpus, 5))).toEqual([
      "mcp__slack__list_channels",
      "mcp__slack__send_message",
    ]);
    expect(names(searchTools("mcp__slack", corpus, 1))).toEqual(["mcp__slack__list_channels"]);
    expect(searchTools("mcp__slack", corpus, 5).mode).toBe("prefix");
  });

  it("+term is required; other terms only rank", () => {
    const o = searchTools("+playwright click", corpus, 5);
    expect(o.mode).toBe("keywords");
    expect(names(o)).toEqual(["mcp__playwright__click", "mcp__playwright__navigate"]);
  });

  it("without + every term is optional, and name hits outrank description hits", () => {
    expect(names(searchTools("notebook jupyter", corpus, 5))).toEqual(["mcp__jupyter__run_cell"]);
    expect(names(searchTools("channel", corpus, 5))).toEqual([
      "mcp__slack__list_channels",
      "mcp__slack__send_message",
    ]);
  });

  it("matches declared keywords", () => {
    expect(names(searchTools("chat", corpus, 5))).toEqual(["mcp__slack__send_message"]);
  });

  it("treats a mistyped select (+Name) as keywords, as the seed says, and returns nothing unrelated", () => {
    expect(searchTools("+Read", corpus, 5)).toEqual({ mode: "keywords", matches: [], notFound: [] });
  });

  it("returns nothing for an empty keyword query", () => {
    expect(searchTools("   ", corpus, 5).matches).toEqual([]);
  });
});

describe("searchDeferredTools", () => {
  it("finds deferred tools but never one a layer removed", () => {
    const slack = mcpDescriptor("mcp__slack__send", {
      shouldDefer: true,
      description: "Send a Slack message",
    });
    const r = resolveToolPolicy(
      openInput({
        tools: [...catalogDescriptors(), slack],
        deferred: ["web_fetch", "web_search", "exec"],
        lists: [{ label: "user", deny: ["web_search"] }],
        securityProfile: "daemon",
      }),
    );
    expect(r.deferred).toEqual(["web_fetch", "mcp__slack__send"]);
    expect(names(searchDeferredTools(r, "select:web_fetch,web_search,exec", 5))).toEqual(["web_fetch"]);
    expect(searchDeferredTools(r, "web_search", 5).matches).toEqual([]);
    expect(names(searchDeferredTools(r, "+web", 5))).toEqual(["web_fetch"]);
    expect(names(searchDeferredTools(r, "mcp__slack", 5))).toEqual(["mcp__slack__send"]);
  });

  it("does not return visible tools (they are already loaded)", () => {
    const r = resolveToolPolicy(openInput({ deferred: ["web_fetch"] }));
    expect(searchDeferredTools(r, "read_file", 5).matches).toEqual([]);
  });
});
