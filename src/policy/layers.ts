import { isInProfile } from "../catalog/index.js";
import { assertNever } from "../shared/index.js";
import { jobSubsetRemoval } from "./job-subset.js";
import { networkPolicyNote, networkPolicyRemoval } from "./network-policy.js";
import { NOT_PRESENT, type PreparedToolPolicy, type ToolFacts } from "./prepare.js";
import { securityProfileRemoval } from "./security-profiles.js";
import { sessionModeNote, sessionModeRemoval } from "./session-mode.js";
import { findPattern, matchesToolPattern } from "./tool-lists.js";

/**
 * The layers of docs/DESIGN.md §4, in order. Each one looks at one tool and can only remove it; none can
 * add a tool back, so the result is always within what every layer alone allows. `deferred_loading`
 * runs last over the survivors (it needs to see all of them) and is not in {@link POLICY_LAYERS}.
 */
export const POLICY_LAYER_IDS = [
  "catalog",
  "profile",
  "deny",
  "security_profile",
  "network_policy",
  "session_mode",
  "job_subset",
  "tool_state",
  "deferred_loading",
] as const;
export type PolicyLayerId = (typeof POLICY_LAYER_IDS)[number];

/** One per-tool layer: a label with its setting, and why it removes a tool (undefined: keeps it). */
export interface PolicyLayer {
  readonly id: Exclude<PolicyLayerId, "deferred_loading">;
  removal(tool: ToolFacts, policy: PreparedToolPolicy): string | undefined;
  /** What the layer still limits when it keeps a tool, for explain. */
  note(tool: ToolFacts, policy: PreparedToolPolicy): string;
}

/** The per-tool layers, in order. */
export const POLICY_LAYERS: readonly PolicyLayer[] = [
  {
    id: "catalog",
    removal: (tool) => {
      if (tool.entry?.reserved) return "it is a reserved name and never callable";
      if (!tool.entry && !tool.external)
        return "it is neither in the catalog nor an external mcp__<server>__<tool>";
      return undefined;
    },
    note: (tool) =>
      tool.external ? "external tool (mcp.call)" : `catalog tool, section ${tool.entry?.section}`,
  },
  {
    id: "profile",
    removal: (tool, { lists, input }) => {
      if (tool.entry?.alwaysLoaded) return undefined;
      if (findPattern(lists.alsoAllow, tool.name)) return undefined;
      if (lists.allow.length > 0) {
        const missing = lists.allow.find((a) => !a.patterns.some((p) => matchesToolPattern(p, tool.name)));
        return missing
          ? `it is not in tools.allow of source "${missing.label}" (nor in tools.also_allow)`
          : undefined;
      }
      return isInProfile(input.profile, tool.name)
        ? undefined
        : `it is not in tool profile "${input.profile}" (nor in tools.also_allow)`;
    },
    note: (tool, { lists, input }) => {
      if (tool.entry?.alwaysLoaded) return "always loaded";
      const extra = findPattern(lists.alsoAllow, tool.name);
      if (extra) return `added by tools.also_allow "${extra.pattern}" (${extra.labels.join(", ")})`;
      return lists.allow.length > 0 ? "in tools.allow" : `in tool profile "${input.profile}"`;
    },
  },
  {
    id: "deny",
    removal: (tool, { lists }) => {
      const hit = findPattern(lists.deny, tool.name);
      return hit
        ? `it is denied by tools.deny "${hit.pattern}" (source ${hit.labels.join(", ")})`
        : undefined;
    },
    note: () => "not denied by any source",
  },
  {
    id: "security_profile",
    removal: (tool, { input }) => securityProfileRemoval(input.securityProfile, tool.risk, tool.capabilities),
    note: () => "kept",
  },
  {
    id: "network_policy",
    removal: (tool, { input }) => networkPolicyRemoval(input.networkPolicy, tool.capabilities),
    note: (tool, { input }) =>
      networkPolicyNote(input.networkPolicy, tool.capabilities, input.allowedHosts) ?? "kept",
  },
  {
    id: "session_mode",
    removal: (tool, { session }) => sessionModeRemoval(session, tool.risk),
    note: (_tool, { session, input }) => sessionModeNote(session, input.restrictToWorkspace),
  },
  {
    id: "job_subset",
    // tool_search is exempt: it exposes nothing itself and finds only tools that passed this layer.
    removal: (tool, { input }) =>
      tool.entry?.alwaysLoaded ? undefined : jobSubsetRemoval(input.jobSubsets, tool.name),
    note: (_tool, { input }) =>
      input.jobSubsets.length === 0
        ? "no per-job subset"
        : `in allowed_tools of ${input.jobSubsets.map((s) => s.label).join(", ")}`,
  },
  {
    id: "tool_state",
    removal: (tool) => {
      if (tool.state === NOT_PRESENT) return "it is not present (no implementation is registered)";
      if (!tool.state.ready) return `it is not ready: ${tool.state.detail}`;
      if (!tool.state.enabled) return `it is disabled: ${tool.state.detail}`;
      return undefined;
    },
    note: (tool) => tool.state.detail,
  },
];

/** The label of a layer with its setting, as reasons print it ("security_profile=daemon"). */
export function layerLabel(id: PolicyLayerId, policy: PreparedToolPolicy): string {
  const { input } = policy;
  switch (id) {
    case "catalog":
    case "deny":
    case "job_subset":
    case "tool_state":
    case "deferred_loading":
      return id;
    case "profile":
      return policy.lists.allow.length > 0 ? "allow" : `profile=${input.profile}`;
    case "security_profile":
      return `security_profile=${input.securityProfile}`;
    case "network_policy":
      return `network_policy=${input.networkPolicy}`;
    case "session_mode":
      return `session_mode=${input.sessionMode}`;
    default:
      return assertNever(id, "policy layer");
  }
}

/** The reason line for a removal: `Tool "exec" removed by layer security_profile=daemon: <why>`. */
export function removalReason(name: string, label: string, why: string): string {
  return `Tool "${name}" removed by layer ${label}: ${why}`;
}
