import { describe, expect, it } from "vitest";
import {
  CAPABILITIES,
  RISK_LEVELS,
  TOOL_CATALOG,
  TOOL_PROFILES,
  type ToolDescriptor,
} from "../catalog/index.js";
import { explainTool } from "./explain.js";
import type { ToolPolicyInput } from "./prepare.js";
import { resolveToolPolicy } from "./resolve-tool-policy.js";
import { NETWORK_POLICIES, SECURITY_PROFILES, SESSION_PERMISSION_MODES } from "./settings.js";
import { catalogDescriptors, mcpDescriptor, openInput, READY } from "./test-support.fixture.js";
import { searchDeferredTools } from "./tool-search.js";

/**
 * Property tests over random configs and sessions, from a small seeded PRNG (mulberry32) so that
 * a failure names its seed and replays exactly; no dependency needed for this.
 */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (p: number) => next() < p;
  const subset = <T>(items: readonly T[], p: number): T[] => items.filter(() => chance(p));
  return { int, pick, chance, subset };
}

type Rng = ReturnType<typeof prng>;

const MCP_NAMES = [
  "mcp__slack__send",
  "mcp__slack__list",
  "mcp__fs__put",
  "mcp__web__get",
  "mcp__ops__deploy",
];

function randomTools(rng: Rng): ToolDescriptor[] {
  const state = () =>
    rng.chance(0.85) ? READY : { ready: rng.chance(0.5), enabled: rng.chance(0.5), detail: "random state" };
  const catalog = rng.subset(catalogDescriptors(), 0.85).map((d) => ({ ...d, state: state() }));
  const external = rng.subset(MCP_NAMES, 0.6).map((name) =>
    mcpDescriptor(name, {
      declaredRisk: rng.chance(0.5) ? rng.pick(RISK_LEVELS) : undefined,
      declaredCapabilities: ["mcp.call", ...rng.subset(CAPABILITIES, 0.1)],
      shouldDefer: rng.chance(0.5),
      state: state(),
    }),
  );
  return [...catalog, ...external];
}

function randomPattern(rng: Rng, names: readonly string[]): string {
  const name = rng.pick(names);
  if (rng.chance(0.8)) return name;
  return `${name.slice(0, 1 + rng.int(name.length))}*`;
}

function randomInput(rng: Rng): ToolPolicyInput {
  const tools = randomTools(rng);
  const names = [...TOOL_CATALOG.map((e) => e.name), ...MCP_NAMES];
  const list = (p: number) =>
    rng.chance(p) ? Array.from({ length: 1 + rng.int(4) }, () => randomPattern(rng, names)) : [];
  return {
    tools,
    profile: rng.pick(TOOL_PROFILES),
    lists: Array.from({ length: rng.int(4) }, (_, i) => ({
      label: `source${i}`,
      allow: list(0.2),
      alsoAllow: list(0.3),
      deny: list(0.4),
    })),
    securityProfile: rng.pick(SECURITY_PROFILES),
    networkPolicy: rng.pick(NETWORK_POLICIES),
    allowedHosts: rng.chance(0.5) ? ["api.example.com"] : [],
    sessionMode: rng.pick(SESSION_PERMISSION_MODES),
    restrictToWorkspace: rng.chance(0.5),
    jobSubsets: Array.from({ length: rng.int(3) }, (_, i) => ({
      label: `job${i}`,
      tools: rng.subset(names, 0.6),
    })),
    deferred: list(0.5),
  };
}

/** The input with only one layer's settings from `input` and every other layer open. */
function layerAlone(input: ToolPolicyInput, layer: string): ToolPolicyInput {
  const open = openInput({
    tools: input.tools.map((d) => ({ ...d, state: READY })),
    deferred: input.deferred,
  });
  switch (layer) {
    case "profile":
      return { ...open, profile: input.profile, lists: input.lists.map((l) => ({ ...l, deny: [] })) };
    case "deny":
      return { ...open, lists: input.lists.map((l) => ({ label: l.label, deny: l.deny ?? [] })) };
    case "security_profile":
      return { ...open, securityProfile: input.securityProfile };
    case "network_policy":
      return { ...open, networkPolicy: input.networkPolicy, allowedHosts: input.allowedHosts };
    case "session_mode":
      return { ...open, sessionMode: input.sessionMode };
    case "job_subset":
      return { ...open, jobSubsets: input.jobSubsets };
    case "tool_state":
      return { ...open, tools: input.tools };
    default:
      throw new Error(`no such layer ${layer}`);
  }
}

const LAYERS = [
  "profile",
  "deny",
  "security_profile",
  "network_policy",
  "session_mode",
  "job_subset",
  "tool_state",
];
const RUNS = 400;

describe("tool policy properties (seeded random configs and sessions)", () => {
  it("never lets the visible or deferred set exceed what any single layer alone allows", () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const input = randomInput(prng(seed));
      const all = resolveToolPolicy(input);
      for (const layer of LAYERS) {
        const alone = resolveToolPolicy(layerAlone(input, layer)).allowed;
        const regranted = [...all.allowed].filter((t) => !alone.has(t));
        expect({ seed, layer, regranted }).toEqual({ seed, layer, regranted: [] });
      }
    }
  });

  it("partitions the candidates: each is visible, deferred or removed, exactly once", () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const input = randomInput(prng(seed));
      const r = resolveToolPolicy(input);
      const seen = [...r.visible, ...r.deferred, ...r.removed.map((x) => x.tool)].sort();
      expect({ seed, seen }).toEqual({ seed, seen: input.tools.map((d) => d.name).sort() });
    }
  });

  it("never returns a removed tool through tool_search, whatever the query", () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const rng = prng(seed);
      const input = randomInput(rng);
      const r = resolveToolPolicy(input);
      const removed = new Set(r.removed.map((x) => x.tool));
      const everyName = input.tools.map((d) => d.name);
      const queries = [
        `select:${everyName.join(",")}`,
        ...everyName,
        "mcp__",
        "mcp__slack",
        ...everyName.map((n) => `+${n.split("_")[0]}`),
        rng.subset(["web", "file", "message", "+exec", "run", "skill", "send", "+mcp"], 0.5).join(" "),
      ];
      for (const query of queries) {
        for (const m of searchDeferredTools(r, query, 20).matches) {
          expect({ seed, query, tool: m.name, removed: removed.has(m.name) }).toMatchObject({
            removed: false,
          });
          expect(r.deferred).toContain(m.name);
        }
      }
    }
  });

  it("only tightens when one setting is made stricter or a deny is added", () => {
    const stricter = <T>(order: readonly T[], value: T, rng: Rng): T =>
      order[order.indexOf(value) + rng.int(order.length - order.indexOf(value))] as T;
    for (let seed = 1; seed <= RUNS; seed++) {
      const rng = prng(seed);
      const input = randomInput(rng);
      const before = resolveToolPolicy(input).allowed;
      const variants: ToolPolicyInput[] = [
        { ...input, securityProfile: stricter(SECURITY_PROFILES, input.securityProfile, rng) },
        { ...input, networkPolicy: stricter(NETWORK_POLICIES, input.networkPolicy, rng) },
        { ...input, sessionMode: stricter(SESSION_PERMISSION_MODES, input.sessionMode, rng) },
        {
          ...input,
          lists: [
            ...input.lists,
            { label: "extra", deny: [rng.pick(input.tools.map((d) => d.name).concat("x"))] },
          ],
        },
        {
          ...input,
          jobSubsets: [...input.jobSubsets, { label: "child", tools: rng.subset([...before], 0.5) }],
        },
      ];
      for (const variant of variants) {
        const grown = [...resolveToolPolicy(variant).allowed].filter((t) => !before.has(t));
        expect({ seed, grown }).toEqual({ seed, grown: [] });
      }
    }
  });

  it("explains the same outcome resolveToolPolicy computes", () => {
    for (let seed = 1; seed <= 100; seed++) {
      const rng = prng(seed);
      const input = randomInput(rng);
      const r = resolveToolPolicy(input);
      for (const d of input.tools) {
        const outcome = explainTool(input, d.name).outcome;
        const expected = r.visible.includes(d.name)
          ? "visible"
          : r.deferred.includes(d.name)
            ? "deferred"
            : "removed";
        expect({ seed, tool: d.name, outcome }).toEqual({ seed, tool: d.name, outcome: expected });
      }
    }
  });
});
