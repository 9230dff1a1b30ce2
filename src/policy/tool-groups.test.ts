import { describe, expect, it } from "vitest";
import { TOOL_CATALOG } from "../catalog/index.js";
import { resolveToolPolicy } from "./resolve-tool-policy.js";
import { catalogDescriptors, mcpDescriptor, openInput } from "./test-support.fixture.js";
import { knownToolGroups, matchesToolGroup, parseToolGroup, toolGroupProblem } from "./tool-groups.js";

const sectionTools = (section: string) =>
  TOOL_CATALOG.filter((e) => e.section === section && !e.reserved).map((e) => e.name);
const tools = [
  ...catalogDescriptors(),
  mcpDescriptor("mcp__slack__send"),
  mcpDescriptor("mcp__slack__read"),
  mcpDescriptor("mcp__github__issue"),
];

describe("tool groups (seed 002 plugin groups)", () => {
  it("parses group:<section> and group:mcp:<server>, and nothing else", () => {
    expect(parseToolGroup("group:fs")).toEqual({ kind: "section", section: "fs" });
    expect(parseToolGroup("group:mcp:slack")).toEqual({ kind: "mcp", server: "slack" });
    expect(parseToolGroup("group:websurfing")).toBeUndefined();
    expect(parseToolGroup("group:mcp:")).toBeUndefined();
    expect(parseToolGroup("read_file")).toBeUndefined();
    expect(matchesToolGroup("group:websurfing", "web_fetch")).toBe(false);
  });

  it("expands group:<section> in tools.allow to the catalog's tools of that section", () => {
    const r = resolveToolPolicy(openInput({ tools, lists: [{ label: "project", allow: ["group:fs"] }] }));
    expect([...r.visible].sort()).toEqual(sectionTools("fs").sort());
  });

  it("adds a section with tools.also_allow on top of a profile", () => {
    const r = resolveToolPolicy(
      openInput({ tools, profile: "minimal", lists: [{ label: "project", alsoAllow: ["group:web"] }] }),
    );
    for (const name of sectionTools("web")) expect(r.allowed.has(name)).toBe(true);
    expect(r.allowed.has("exec")).toBe(false);
  });

  it("denies every tool of an MCP server with group:mcp:<server>, and only that server's", () => {
    const r = resolveToolPolicy(openInput({ tools, lists: [{ label: "env", deny: ["group:mcp:slack"] }] }));
    expect(r.allowed.has("mcp__slack__send")).toBe(false);
    expect(r.allowed.has("mcp__slack__read")).toBe(false);
    expect(r.allowed.has("mcp__github__issue")).toBe(true);
    expect(r.removed.find((x) => x.tool === "mcp__slack__send")?.reason).toContain(
      'it is denied by tools.deny "group:mcp:slack"',
    );
  });

  it("denies a whole section with group:<section>, whatever another source allows", () => {
    const r = resolveToolPolicy(
      openInput({
        tools,
        lists: [
          { label: "project", allow: ["exec", "read_file"] },
          { label: "user", deny: ["group:runtime"] },
        ],
      }),
    );
    expect([...r.allowed]).toEqual(["read_file"]);
  });

  it("names the allowed groups when a group is unknown", () => {
    expect(toolGroupProblem("group:websurfing", ["slack"])).toBe(
      `"group:websurfing" is not a tool group; the groups are ${knownToolGroups(["slack"]).join(", ")}`,
    );
    expect(toolGroupProblem("group:mcp:github", ["slack"])).toContain(
      'names MCP server "github", which is not in tools.mcp.servers',
    );
    expect(toolGroupProblem("group:mcp:slack", ["slack"])).toBeUndefined();
    expect(toolGroupProblem("exec", [])).toBeUndefined();
  });
});
