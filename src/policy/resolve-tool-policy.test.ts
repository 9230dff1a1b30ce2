import { describe, expect, it } from "vitest";
import { TOOL_CATALOG } from "../catalog/index.js";
import type { ToolPolicyInput } from "./prepare.js";
import { checkToolCall, resolveToolPolicy } from "./resolve-tool-policy.js";
import { catalogDescriptors, mcpDescriptor, openInput, READY } from "./test-support.fixture.js";

const CALLABLE = TOOL_CATALOG.filter((e) => !e.reserved && e.name !== "tool_search").map((e) => e.name);
const byRisk = (...risks: string[]) =>
  TOOL_CATALOG.filter((e) => !e.reserved && risks.includes(e.risk) && e.name !== "tool_search").map(
    (e) => e.name,
  );

function removedBy(input: Parameters<typeof resolveToolPolicy>[0], layer: string): string[] {
  return resolveToolPolicy(input)
    .removed.filter((r) => r.layer === layer)
    .map((r) => r.tool)
    .sort();
}

describe("resolveToolPolicy: the open input", () => {
  it("keeps every callable catalog tool and removes only the reserved names and an idle tool_search", () => {
    const r = resolveToolPolicy(openInput());
    expect([...r.visible].sort()).toEqual([...CALLABLE].sort());
    expect(r.deferred).toEqual([]);
    expect(r.removed.map((x) => [x.tool, x.layer])).toEqual([
      ["agents_list", "catalog"],
      ["agents_route", "catalog"],
      ["tool_search", "deferred_loading"],
    ]);
    expect(r.removed[0]?.reason).toBe(
      'Tool "agents_list" removed by layer catalog: it is a reserved name and never callable',
    );
  });
});

describe("resolveToolPolicy: each layer removes with its reason", () => {
  it.each([
    [
      "profile",
      { profile: "minimal" as const },
      "write_file",
      'Tool "write_file" removed by layer profile=minimal: it is not in tool profile "minimal" (nor in tools.also_allow)',
    ],
    [
      "profile",
      { lists: [{ label: "project", allow: ["read_file"] }] },
      "list_dir",
      'Tool "list_dir" removed by layer allow: it is not in tools.allow of source "project" (nor in tools.also_allow)',
    ],
    [
      "deny",
      { lists: [{ label: "user", deny: ["exec"] }] },
      "exec",
      'Tool "exec" removed by layer deny: it is denied by tools.deny "exec" (source user)',
    ],
    [
      "deny",
      { lists: [{ label: "env", deny: ["mcp__*"] }] },
      "mcp__slack__send",
      'Tool "mcp__slack__send" removed by layer deny: it is denied by tools.deny "mcp__*" (source env)',
    ],
    [
      "security_profile",
      { securityProfile: "daemon" as const },
      "exec",
      'Tool "exec" removed by layer security_profile=daemon: capability process.exec is denied by this profile (removes process and code execution and skill installation)',
    ],
    [
      "security_profile",
      { securityProfile: "public_gateway" as const },
      "memory",
      'Tool "memory" removed by layer security_profile=public_gateway: its risk write is denied by this profile (removes every write, exec and dangerous tool)',
    ],
    [
      "network_policy",
      { networkPolicy: "deny" as const },
      "web_fetch",
      'Tool "web_fetch" removed by layer network_policy=deny: it makes outbound network requests (network.outbound)',
    ],
    [
      "session_mode",
      { sessionMode: "read-only" as const },
      "todo",
      'Tool "todo" removed by layer session_mode=read-only: session mode read-only keeps only read-only tools, and this tool\'s risk is write',
    ],
    [
      "job_subset",
      {
        jobSubsets: [
          { label: "job", tools: ["read_file", "exec"] },
          { label: "parent job", tools: ["read_file"] },
        ],
      },
      "exec",
      'Tool "exec" removed by layer job_subset: it is not in allowed_tools of parent job',
    ],
    [
      "tool_state",
      {
        tools: [
          {
            ...mcpDescriptor("mcp__slack__send"),
            state: { ready: false, enabled: true, detail: "SLACK_TOKEN is not set" },
          },
        ],
      },
      "mcp__slack__send",
      'Tool "mcp__slack__send" removed by layer tool_state: it is not ready: SLACK_TOKEN is not set',
    ],
    [
      "tool_state",
      {
        tools: [
          {
            ...mcpDescriptor("mcp__web__get"),
            state: { ready: true, enabled: false, detail: "no outbound network" },
          },
        ],
      },
      "mcp__web__get",
      'Tool "mcp__web__get" removed by layer tool_state: it is disabled: no outbound network',
    ],
    [
      "deferred_loading",
      { deferred: ["web_search"], lists: [{ label: "project", deny: ["tool_search"] }] },
      "web_search",
      'Tool "web_search" removed by layer deferred_loading: it is deferred (loaded only through tool_search) and tool_search is not available',
    ],
  ])("layer %s removes the tool under %j", (layer, tablePatch, tool, reason) => {
    const patch: Partial<ToolPolicyInput> = tablePatch;
    const base = openInput();
    const input = {
      ...base,
      ...patch,
      tools: [...base.tools, ...(patch.tools ?? [mcpDescriptor("mcp__slack__send")])],
    };
    const r = resolveToolPolicy(input);
    const hit = r.removed.find((x) => x.tool === tool);
    expect(hit?.layer).toBe(layer);
    expect(hit?.reason).toBe(reason);
    expect(r.allowed.has(tool)).toBe(false);
  });

  it("daemon removes exactly exec, execute_code, process and skill_install", () => {
    expect(removedBy(openInput({ securityProfile: "daemon" }), "security_profile")).toEqual(
      ["exec", "execute_code", "process", "skill_install"].sort(),
    );
  });

  it("public_gateway removes exactly every write, exec and dangerous tool", () => {
    expect(removedBy(openInput({ securityProfile: "public_gateway" }), "security_profile")).toEqual(
      byRisk("write", "exec", "dangerous").sort(),
    );
  });

  it("public_gateway also removes an external tool that declares read_only but writes files", () => {
    const sneaky = mcpDescriptor("mcp__fs__put", {
      declaredRisk: "read_only",
      declaredCapabilities: ["mcp.call", "fs.write"],
    });
    const honest = mcpDescriptor("mcp__fs__get", {
      declaredRisk: "read_only",
      declaredCapabilities: ["mcp.call", "fs.read"],
    });
    const r = resolveToolPolicy(openInput({ securityProfile: "public_gateway", tools: [sneaky, honest] }));
    expect(r.removed.map((x) => x.tool)).toEqual(["mcp__fs__put"]);
    expect(r.visible).toEqual(["mcp__fs__get"]);
  });

  it("network deny removes exactly the tools with network.outbound", () => {
    expect(removedBy(openInput({ networkPolicy: "deny" }), "network_policy")).toEqual(
      ["web_fetch", "web_search", "image_generate", "text_to_speech", "skill_install"].sort(),
    );
  });

  it("network restricted keeps the network tools (hosts are checked per call)", () => {
    const r = resolveToolPolicy(
      openInput({ networkPolicy: "restricted", allowedHosts: ["api.example.com"] }),
    );
    expect(r.visible).toContain("web_fetch");
    expect(r.network).toEqual({ policy: "restricted", allowedHosts: ["api.example.com"] });
  });

  it("read-only sessions keep exactly the read-only tools", () => {
    const r = resolveToolPolicy(openInput({ sessionMode: "read-only" }));
    expect([...r.visible].sort()).toEqual(byRisk("read_only").sort());
    expect(r.session).toEqual({ mode: "read-only", execMode: "deny", workspaceOnly: true, readOnly: true });
  });

  it.each([
    ["guarded", "ask"],
    ["workspace", "auto"],
    ["full", "full"],
  ] as const)("%s sessions keep every tool with exec mode %s", (mode, execMode) => {
    const r = resolveToolPolicy(openInput({ sessionMode: mode }));
    expect(r.visible).toHaveLength(CALLABLE.length);
    expect(r.session).toMatchObject({ execMode, workspaceOnly: mode !== "full" });
  });

  it.each([
    [
      "minimal",
      [
        "read_file",
        "list_dir",
        "search_files",
        "read_spill",
        "knowledge_search",
        "session_search",
        "skills_list",
        "skill_view",
        "web_fetch",
        "web_search",
        "todo",
        "notify",
        "message",
        "clarify",
      ],
    ],
    ["messaging", ["vision_analyze", "memory", "image_generate", "text_to_speech"]],
    ["coding", ["write_file", "edit_file", "patch", "knowledge_index", "task", "workflow"]],
  ] as const)("profile %s keeps its tools (added over the previous profile: %j)", (profile, added) => {
    const r = resolveToolPolicy(openInput({ profile }));
    expect(r.visible).toEqual(expect.arrayContaining([...added]));
    expect(r.visible).not.toContain("exec");
    expect(r.visible).not.toContain("cronjob");
  });

  it("lets also_allow add to the profile and allow replace it", () => {
    const extra = resolveToolPolicy(
      openInput({ profile: "coding", lists: [{ label: "project", alsoAllow: ["exec", "process"] }] }),
    );
    expect(extra.visible).toEqual(expect.arrayContaining(["write_file", "exec", "process"]));
    expect(extra.visible).not.toContain("execute_code");
    const replaced = resolveToolPolicy(
      openInput({ profile: "minimal", lists: [{ label: "project", allow: ["exec"] }] }),
    );
    expect(replaced.visible).toEqual(["exec"]);
  });

  it("treats an empty allow list as not set", () => {
    const r = resolveToolPolicy(openInput({ profile: "minimal", lists: [{ label: "project", allow: [] }] }));
    expect(r.visible).toContain("read_file");
    expect(r.visible).not.toContain("write_file");
  });
});

describe("deny across config sources", () => {
  it.each([
    ["allow", { label: "project", allow: ["exec", "read_file"] }],
    ["also_allow", { label: "project", alsoAllow: ["exec"] }],
  ])("a deny in one source beats %s in another", (_what, allowing) => {
    const r = resolveToolPolicy(
      openInput({ profile: "minimal", lists: [allowing, { label: "user", deny: ["exec"] }] }),
    );
    expect(r.allowed.has("exec")).toBe(false);
    expect(r.removed.find((x) => x.tool === "exec")?.reason).toContain("source user");
  });

  it("requires a tool to be in every source's allow list when several set one", () => {
    const r = resolveToolPolicy(
      openInput({
        lists: [
          { label: "project", allow: ["read_file", "exec"] },
          { label: "user", allow: ["read_file"] },
        ],
      }),
    );
    expect(r.visible).toEqual(["read_file"]);
  });
});

describe("deferred loading", () => {
  it("defers configured and self-deferring tools and keeps tool_search visible to find them", () => {
    const mcp = mcpDescriptor("mcp__slack__send", { shouldDefer: true });
    const r = resolveToolPolicy(openInput({ tools: [...catalogDescriptors(), mcp], deferred: ["web_*"] }));
    expect(r.deferred).toEqual(["web_fetch", "web_search", "mcp__slack__send"]);
    expect(r.visible).toContain("tool_search");
    expect(r.visible).not.toContain("web_fetch");
    expect([...r.allowed]).toEqual(expect.arrayContaining(["web_fetch", "tool_search"]));
  });

  it("never defers tool_search itself", () => {
    const r = resolveToolPolicy(openInput({ deferred: ["tool_search", "web_fetch"] }));
    expect(r.visible).toContain("tool_search");
    expect(r.deferred).toEqual(["web_fetch"]);
  });
});

describe("checkToolCall", () => {
  it("refuses a delegate_task call whose child would get exec under daemon, although delegate_task is listed", () => {
    const r = resolveToolPolicy(openInput({ securityProfile: "daemon" }));
    expect(r.allowed.has("delegate_task")).toBe(true);
    const call = checkToolCall(r, "delegate_task", { task: "x", allowed_tools: ["exec"] });
    expect(call.allowed).toBe(false);
    expect(call.removedBy?.reason).toBe(
      'Tool "delegate_task" removed by layer security_profile=daemon: capability process.exec is denied by this profile (removes process and code execution and skill installation)',
    );
    expect(checkToolCall(r, "delegate_task", { allowed_tools: ["read_file"] }).allowed).toBe(true);
  });

  it("refuses a call the tool says is not read-only in a read-only session", () => {
    const r = resolveToolPolicy(openInput({ sessionMode: "read-only" }));
    expect(checkToolCall(r, "read_file", { path: "a" }).allowed).toBe(true);
    const call = checkToolCall(r, "read_file", { path: "a" }, { readOnly: false });
    expect(call.allowed).toBe(false);
    expect(call.risk.level).toBe("write");
  });

  it("refuses removed and absent tools with the removal that took them out", () => {
    const r = resolveToolPolicy(
      openInput({ lists: [{ label: "user", deny: ["exec"] }], tools: catalogDescriptors() }),
    );
    expect(checkToolCall(r, "exec", {}).removedBy?.layer).toBe("deny");
    expect(checkToolCall(r, "mcp__x__y", {}).removedBy?.layer).toBe("tool_state");
  });

  it("refuses unknown names at the catalog layer", () => {
    const r = resolveToolPolicy(openInput());
    expect(checkToolCall(r, "rm_everything", {}).removedBy?.layer).toBe("catalog");
  });

  it("describes the state of candidates through the tool_state layer", () => {
    const r = resolveToolPolicy(
      openInput({ tools: catalogDescriptors({ ...READY, ready: false, detail: "offline" }) }),
    );
    expect(r.visible).toEqual([]);
  });
});
