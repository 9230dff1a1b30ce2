import { describe, expect, it } from "vitest";
import { jobSubsetRemoval, resolveChildToolSubset } from "./job-subset.js";
import { findPattern, matchesToolPattern, mergeToolLists } from "./tool-lists.js";

describe("tool list patterns", () => {
  it.each([
    ["exec", "exec", true],
    ["exec", "execute_code", false],
    ["exec*", "execute_code", true],
    ["mcp__slack__*", "mcp__slack__send", true],
    ["mcp__slack__*", "mcp__slackbot__send", false],
    ["*", "anything", true],
  ])("%j matches %j: %s", (pattern, name, expected) => {
    expect(matchesToolPattern(pattern, name)).toBe(expected);
  });
});

describe("mergeToolLists", () => {
  const merged = mergeToolLists([
    { label: "default", allow: [], deny: ["cronjob"] },
    { label: "project", allow: ["read_file"], alsoAllow: ["exec"], deny: ["exec"] },
    { label: "user", deny: ["exec"], alsoAllow: ["exec"] },
  ]);

  it("unions the deny lists and remembers every source of an entry", () => {
    expect(merged.deny).toEqual([
      { pattern: "cronjob", labels: ["default"] },
      { pattern: "exec", labels: ["project", "user"] },
    ]);
    expect(findPattern(merged.deny, "exec")?.labels).toEqual(["project", "user"]);
  });

  it("keeps only non-empty allow lists (an empty one is not set)", () => {
    expect(merged.allow).toEqual([{ label: "project", patterns: ["read_file"] }]);
  });

  it("unions also_allow", () => {
    expect(merged.alsoAllow).toEqual([{ pattern: "exec", labels: ["project", "user"] }]);
  });
});

describe("per-job tool subsets", () => {
  it("removes a tool missing from any list of the chain and names that list", () => {
    const chain = [
      { label: "job", tools: ["read_file", "exec"] },
      { label: "parent job", tools: ["read_file", "web_*"] },
    ];
    expect(jobSubsetRemoval(chain, "read_file")).toBeUndefined();
    expect(jobSubsetRemoval(chain, "exec")).toBe("it is not in allowed_tools of parent job");
    expect(jobSubsetRemoval(chain, "web_fetch")).toBe("it is not in allowed_tools of job");
    expect(jobSubsetRemoval([], "exec")).toBeUndefined();
  });

  it("gives a child at most its parent's tools and lists what it was refused", () => {
    expect(resolveChildToolSubset(["read_file", "web_fetch"], ["web_fetch", "exec", "web_fetch"])).toEqual({
      tools: ["web_fetch"],
      refused: ["exec"],
    });
  });

  it("gives a child that asks for nothing its parent's set", () => {
    expect(resolveChildToolSubset(["read_file"], undefined)).toEqual({ tools: ["read_file"], refused: [] });
  });
});
