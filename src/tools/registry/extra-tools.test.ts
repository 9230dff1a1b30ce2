import { describe, expect, it } from "vitest";
import {
  ATTENDED,
  openPolicyInput,
  policyThenGate,
  UNATTENDED,
} from "../../../test/helpers/policy-and-gate.js";
import { catalogEntry } from "../../catalog/index.js";
import { resolveToolPolicy, type ToolPolicyInput } from "../../policy/index.js";
import { ManualClock } from "../../shared/index.js";
import { createExtraTools, type ExtraToolRuntime } from "./extra-tools.js";
import { createToolRegistry } from "./registry.js";

const BARE: ExtraToolRuntime = {
  web: {
    checkUrl: async () => ({ verdict: "deny", reason: "no network in this test", host: "", connectTo: [] }),
    lookup: async () => [],
    hostPolicy: () => undefined,
  },
  clock: new ManualClock(0),
};

const NAMES = [
  "web_fetch",
  "web_search",
  "knowledge_index",
  "knowledge_search",
  "skills_list",
  "skill_view",
  "skill_install",
  "skill_manage",
  "vision_analyze",
  "image_generate",
  "text_to_speech",
  "notify",
  "message",
  "session_search",
];

describe("createExtraTools", () => {
  it("builds every tool of this group under its catalog name, with the catalog's risk", () => {
    const tools = createExtraTools(BARE);
    expect(tools.map((t) => t.name)).toEqual(NAMES);
    for (const tool of tools)
      expect([tool.name, tool.riskLevel]).toEqual([tool.name, catalogEntry(tool.name)?.risk]);
    expect(() => createToolRegistry(tools)).not.toThrow();
  });

  it("reports every tool whose dependency is missing as not ready, with the reason", () => {
    const { present, absent } = createToolRegistry(createExtraTools(BARE)).present({
      networkAvailable: true,
    });
    expect(present.map((t) => t.name)).toEqual(["web_fetch"]);
    const reasons = Object.fromEntries(
      absent.filter((a) => NAMES.includes(a.name)).map((a) => [a.name, a.reason]),
    );
    expect(reasons).toEqual({
      web_search: "not ready: no search provider is configured (tools.web.search.provider is none)",
      knowledge_index: "not ready: no Redis client was given for the knowledge base",
      knowledge_search: "not ready: no Redis client was given for the knowledge base",
      skills_list: "not ready: no skills directory is configured (tools.skills.dir)",
      skill_view: "not ready: no skills directory is configured (tools.skills.dir)",
      skill_install: "not ready: no skills directory is configured (tools.skills.dir)",
      skill_manage: "not ready: no skills directory is configured (tools.skills.dir)",
      vision_analyze: "not ready: no vision endpoint is configured (tools.media.vision)",
      image_generate: "not ready: no image endpoint is configured (tools.media.image)",
      text_to_speech: "not ready: no tts endpoint is configured (tools.media.tts)",
      notify: "not ready: no message channel is configured (smtp.host or tools.messaging.webhooks)",
      message: "not ready: no message channel is configured (smtp.host or tools.messaging.webhooks)",
      session_search: "not ready: no session archive was given (run transcripts)",
    });
  });

  it("disables the network tools on a host without network", () => {
    const { absent } = createToolRegistry(createExtraTools(BARE)).present({ networkAvailable: false });
    expect(absent.find((a) => a.name === "web_fetch")?.reason).toBe(
      "disabled in this environment (isEnabled returned false)",
    );
  });
});

/** Policy and gate over this group's tools, with every dependency vouched for as present. */
describe("policy and gate over the extra tools", () => {
  const descriptors = createToolRegistry(createExtraTools(BARE))
    .describe({ networkAvailable: true })
    .map((d) => ({ ...d, state: { ready: true, enabled: true, detail: "ready" } }));
  const base = openPolicyInput(descriptors);
  const allowed = (input: Partial<ToolPolicyInput>) =>
    [...resolveToolPolicy({ ...base, ...input }).allowed].sort();

  it.each<[string, Partial<ToolPolicyInput>, string[]]>([
    [
      "network_policy deny removes every tool with network.outbound",
      { networkPolicy: "deny" },
      ["web_fetch", "web_search", "image_generate", "text_to_speech", "skill_install"],
    ],
    ["security profile daemon removes skill_install", { securityProfile: "daemon" }, ["skill_install"]],
    [
      "profile minimal keeps only read-only tools and messages",
      { profile: "minimal" },
      [
        "knowledge_index",
        "skill_install",
        "skill_manage",
        "vision_analyze",
        "image_generate",
        "text_to_speech",
      ],
    ],
    [
      "security profile public_gateway removes every write, exec and dangerous tool",
      { securityProfile: "public_gateway" },
      [
        "knowledge_index",
        "skill_install",
        "skill_manage",
        "image_generate",
        "text_to_speech",
        "notify",
        "message",
      ],
    ],
    [
      "tools.deny removes every tool it names, read-only ones included",
      { lists: [{ label: "project", deny: NAMES }] },
      NAMES,
    ],
    [
      "session read-only keeps only read-only tools",
      { sessionMode: "read-only" },
      [
        "knowledge_index",
        "skill_install",
        "skill_manage",
        "image_generate",
        "text_to_speech",
        "notify",
        "message",
      ],
    ],
  ])("%s", (_label, input, removed) => {
    expect(allowed(input)).toEqual(NAMES.filter((n) => !removed.includes(n)).sort());
  });

  const decide = policyThenGate(resolveToolPolicy(base));
  it.each<[string, Record<string, unknown>, "allow" | "ask" | "deny", "attended" | "unattended"]>([
    ["web_fetch", { url: "https://example.com" }, "allow", "unattended"],
    ["knowledge_search", { query: "x" }, "allow", "unattended"],
    ["notify", { title: "t", body: "b" }, "allow", "attended"],
    ["skill_install", { source: "folder", path: "s" }, "deny", "unattended"],
    ["skill_manage", { action: "remove", name: "s" }, "deny", "unattended"],
    ["skill_install", { source: "folder", path: "s" }, "ask", "attended"],
  ])("the gate decides %s %j → %s when %s", async (tool, args, verdict, who) => {
    const decision = await decide(tool, args, who === "attended" ? ATTENDED : UNATTENDED);
    expect(decision.verdict).toBe(verdict);
  });
});
