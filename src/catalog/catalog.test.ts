import { describe, expect, it } from "vitest";
import { listToolSections, toolsInProfile } from "./catalog-lookup.fixture.js";
import {
  capabilitiesOf,
  catalogEntry,
  isInProfile,
  isKnownTool,
  isMcpToolName,
  isReservedTool,
  mcpToolName,
  parseMcpToolName,
  profilesOf,
  riskOf,
} from "./catalog-lookup.js";
import { TOOL_CATALOG, TOOL_SECTIONS } from "./index.js";

// The oracle, written from seed 000's tables by hand: name, risk, capabilities, smallest profile.
// M = minimal, G = messaging, C = coding, F = full only.
const SEED_000 = [
  ["read_file", "read_only", ["fs.read"], "M"],
  ["list_dir", "read_only", ["fs.read"], "M"],
  ["search_files", "read_only", ["fs.read"], "M"],
  ["knowledge_search", "read_only", ["knowledge.read"], "M"],
  ["session_search", "read_only", ["session.read"], "M"],
  ["skills_list", "read_only", ["skill.read"], "M"],
  ["skill_view", "read_only", ["skill.read"], "M"],
  ["agents_list", "read_only", [], "M"],
  ["agents_route", "read_only", [], "M"],
  ["web_fetch", "read_only", ["network.outbound"], "M"],
  ["web_search", "read_only", ["network.outbound"], "M"],
  ["vision_analyze", "read_only", ["media.read"], "G"],
  ["read_spill", "read_only", ["fs.read"], "M"],
  // Runner additions beyond seed 000: read-only git, so "summarise the last change" needs no exec.
  ["git_status", "read_only", ["fs.read"], "M"],
  ["git_log", "read_only", ["fs.read"], "M"],
  ["git_diff", "read_only", ["fs.read"], "M"],
  ["git_show", "read_only", ["fs.read"], "M"],
  ["tool_search", "read_only", [], "M"],
  ["write_file", "write", ["fs.write"], "C"],
  ["edit_file", "write", ["fs.read", "fs.write"], "C"],
  ["patch", "write", ["fs.read", "fs.write"], "C"],
  ["knowledge_index", "write", ["knowledge.write", "fs.read"], "C"],
  ["todo", "write", ["task.write"], "M"],
  ["task", "write", ["task.write"], "C"],
  ["workflow", "write", ["workflow.write"], "C"],
  ["notify", "write", ["message.send"], "M"],
  ["message", "write", ["message.send"], "M"],
  ["clarify", "write", ["message.ask"], "M"],
  ["memory", "write", ["memory.read", "memory.write"], "G"],
  ["image_generate", "write", ["media.generate", "network.outbound"], "G"],
  ["text_to_speech", "write", ["media.generate", "network.outbound"], "G"],
  ["exec", "exec", ["process.exec"], "F"],
  ["execute_code", "exec", ["code.exec", "process.exec"], "F"],
  ["process", "exec", ["process.exec", "process.manage"], "F"],
  ["delegate_task", "exec", ["agent.dispatch"], "F"],
  ["spawn_task", "exec", ["agent.dispatch"], "F"],
  ["cronjob", "dangerous", ["scheduler.write"], "F"],
  ["skill_install", "dangerous", ["skill.install", "network.outbound", "fs.write"], "F"],
  ["skill_manage", "dangerous", ["skill.write", "fs.write"], "F"],
] as const;

const PROFILES_FROM = {
  M: ["minimal", "messaging", "coding", "full"],
  G: ["messaging", "coding", "full"],
  C: ["coding", "full"],
  F: ["full"],
} as const;

describe("tool catalog", () => {
  it("declares exactly the tools of seed 000 plus tool_search and the read-only git tools", () => {
    expect(TOOL_CATALOG.map((e) => e.name).sort()).toEqual(SEED_000.map((row) => row[0]).sort());
  });

  it.each(SEED_000)(
    "declares %s with risk %s, capabilities %j and its seed profiles",
    (name, risk, caps, from) => {
      expect(isKnownTool(name)).toBe(true);
      expect(riskOf(name)).toBe(risk);
      expect(capabilitiesOf(name)).toEqual(caps);
      expect(profilesOf(name)).toEqual(PROFILES_FROM[from]);
      for (const profile of ["minimal", "messaging", "coding", "full"] as const) {
        expect(isInProfile(profile, name)).toBe((PROFILES_FROM[from] as readonly string[]).includes(profile));
      }
    },
  );

  it("nests the profiles: minimal is inside messaging, messaging inside coding, coding inside full", () => {
    const [minimal, messaging, coding, full] = (["minimal", "messaging", "coding", "full"] as const).map(
      (p) => [...toolsInProfile(p)],
    );
    expect(messaging).toEqual(expect.arrayContaining(minimal ?? []));
    expect(coding).toEqual(expect.arrayContaining(messaging ?? []));
    expect(full).toEqual(expect.arrayContaining(coding ?? []));
    expect(full).toHaveLength(TOOL_CATALOG.length);
  });

  it("marks agents_list and agents_route reserved and nothing else", () => {
    expect(TOOL_CATALOG.filter((e) => e.reserved).map((e) => e.name)).toEqual([
      "agents_list",
      "agents_route",
    ]);
    expect(isReservedTool("agents_route")).toBe(true);
    expect(isReservedTool("read_file")).toBe(false);
  });

  it("models delegate_task and spawn_task as inheriting their child's tools through allowed_tools", () => {
    for (const name of ["delegate_task", "spawn_task"]) {
      expect(catalogEntry(name)?.childToolsArgument).toBe("allowed_tools");
    }
    expect(TOOL_CATALOG.filter((e) => e.childToolsArgument).map((e) => e.name)).toEqual([
      "delegate_task",
      "spawn_task",
    ]);
  });

  it("keeps tool_search always loaded", () => {
    expect(TOOL_CATALOG.filter((e) => e.alwaysLoaded).map((e) => e.name)).toEqual(["tool_search"]);
  });

  it("groups every tool under exactly one known section, in section order", () => {
    const groups = listToolSections();
    expect(groups.flatMap((g) => g.tools.map((t) => t.name)).sort()).toEqual(
      TOOL_CATALOG.map((e) => e.name).sort(),
    );
    const order = groups.map((g) => TOOL_SECTIONS.indexOf(g.section));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(groups.find((g) => g.section === "runtime")?.tools.map((t) => t.name)).toEqual([
      "exec",
      "execute_code",
      "process",
    ]);
  });
});

describe("external mcp__ tools", () => {
  it.each([
    ["mcp__slack__send_message", { server: "slack", tool: "send_message" }],
    ["mcp__my_server__do__it", { server: "my_server", tool: "do__it" }],
    ["mcp__a-b__x", { server: "a-b", tool: "x" }],
  ])("parses %s", (name, parts) => {
    expect(isMcpToolName(name)).toBe(true);
    expect(parseMcpToolName(name)).toEqual(parts);
  });

  it.each([
    "mcp__",
    "mcp__slack",
    "mcp__slack__",
    "mcp___slack__x",
    "mcp__sl ack__x",
    "MCP__a__b",
    "read_file",
  ])("rejects %j as an external name", (name) => {
    expect(isMcpToolName(name)).toBe(false);
    expect(parseMcpToolName(name)).toBeUndefined();
  });

  it("treats an external tool without a declared risk as exec (fail closed)", () => {
    expect(riskOf("mcp__slack__send_message")).toBe("exec");
  });

  it("uses an external tool's declared risk, which may be lower or higher than exec", () => {
    expect(riskOf("mcp__docs__lookup", "read_only")).toBe("read_only");
    expect(riskOf("mcp__ops__deploy", "dangerous")).toBe("dangerous");
  });

  it("gives external tools mcp.call plus their declared capabilities", () => {
    expect(capabilitiesOf("mcp__slack__send_message")).toEqual(["mcp.call"]);
    expect(capabilitiesOf("mcp__web__get", ["network.outbound"])).toEqual(["mcp.call", "network.outbound"]);
  });

  it("puts external tools only in the full profile", () => {
    expect(profilesOf("mcp__slack__send_message")).toEqual(["full"]);
    expect(isInProfile("coding", "mcp__slack__send_message")).toBe(false);
    expect(isInProfile("full", "mcp__slack__send_message")).toBe(true);
  });

  it("builds external names and refuses malformed ones", () => {
    expect(mcpToolName("slack", "send")).toBe("mcp__slack__send");
    expect(() => mcpToolName("bad__server", "x")).toThrow(TypeError);
  });
});

describe("risk and capability lookups", () => {
  it("never lowers a catalog tool's static risk by a declared one", () => {
    expect(riskOf("exec", "read_only")).toBe("exec");
    expect(riskOf("read_file", "write")).toBe("write");
  });

  it("treats a name that is neither declared nor external as dangerous and in no profile", () => {
    expect(isKnownTool("rm_everything")).toBe(false);
    expect(riskOf("rm_everything")).toBe("dangerous");
    expect(profilesOf("rm_everything")).toEqual([]);
    expect(capabilitiesOf("rm_everything")).toEqual([]);
  });

  it("adds declared capabilities to the static ones without duplicates", () => {
    expect(capabilitiesOf("edit_file", ["fs.write", "network.outbound"])).toEqual([
      "fs.read",
      "fs.write",
      "network.outbound",
    ]);
  });
});
