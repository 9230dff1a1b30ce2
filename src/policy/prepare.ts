import {
  type Capability,
  type CatalogEntry,
  catalogEntry,
  isMcpToolName,
  type RiskLevel,
  type ToolDescriptor,
  type ToolProfile,
  type ToolState,
} from "../catalog/index.js";
import {
  type ArgumentRiskFacts,
  capabilitiesOfCall,
  explainRisk,
  type RiskClassification,
} from "./classify-risk.js";
import type { JobToolSubset } from "./job-subset.js";
import { resolveSessionPermissionPolicy, type SessionPermissionPolicy } from "./session-mode.js";
import type { NetworkPolicy, SecurityProfile, SessionPermissionMode } from "./settings.js";
import { type MergedToolLists, mergeToolLists, type ToolListSource } from "./tool-lists.js";

/**
 * Everything the tool policy depends on, as plain camelCase data (the config module maps
 * config.yaml onto it; the agent adds the session and the job). Every field is required: there is no
 * permissive default.
 */
export interface ToolPolicyInput {
  /** Candidate tools: the registry's descriptors (order is kept in the output). */
  readonly tools: readonly ToolDescriptor[];
  /** `tools.profile`. */
  readonly profile: ToolProfile;
  /** `tools.allow` / `also_allow` / `deny` per config source (or one merged source). */
  readonly lists: readonly ToolListSource[];
  /** `security.profile`. */
  readonly securityProfile: SecurityProfile;
  /** `execution.network_policy`. */
  readonly networkPolicy: NetworkPolicy;
  /** `execution.allowed_hosts` (used when the network policy is restricted). */
  readonly allowedHosts: readonly string[];
  /** The session's permission mode. */
  readonly sessionMode: SessionPermissionMode;
  /** `tools.restrict_to_workspace`: workspace-only file access even in full mode. */
  readonly restrictToWorkspace: boolean;
  /** The job's `allowed_tools`, then each ancestor's (empty: no per-job subset). */
  readonly jobSubsets: readonly JobToolSubset[];
  /** `tools.deferred`: names or `prefix*` patterns loaded only through tool_search. */
  readonly deferred: readonly string[];
}

/** A {@link ToolPolicyInput} with its derived parts computed once (reuse it for many decisions). */
export interface PreparedToolPolicy {
  readonly input: ToolPolicyInput;
  readonly lists: MergedToolLists;
  readonly session: SessionPermissionPolicy;
  /** Candidate descriptors by name. */
  readonly descriptors: ReadonlyMap<string, ToolDescriptor>;
}

/** Prepares an input. Throws TypeError on duplicate tool names (a registry bug, never a config one). */
export function prepareToolPolicy(input: ToolPolicyInput): PreparedToolPolicy {
  const descriptors = new Map<string, ToolDescriptor>();
  for (const tool of input.tools) {
    if (descriptors.has(tool.name)) throw new TypeError(`tool policy input lists "${tool.name}" twice`);
    descriptors.set(tool.name, tool);
  }
  return {
    input,
    lists: mergeToolLists(input.lists),
    session: resolveSessionPermissionPolicy(input.sessionMode),
    descriptors,
  };
}

/** What the per-tool layers know about a tool (for a listing, or for one call with its arguments). */
export interface ToolFacts {
  readonly name: string;
  /** The catalog entry; undefined for external and unknown tools. */
  readonly entry: CatalogEntry | undefined;
  readonly external: boolean;
  /** Classified risk (for a call: with its argument-derived part). */
  readonly risk: RiskLevel;
  readonly capabilities: readonly Capability[];
  readonly state: ToolState;
}

/** The state of a tool that has no descriptor: not present. */
export const NOT_PRESENT: ToolState = Object.freeze({
  ready: false,
  enabled: false,
  detail: "not present (no implementation is registered)",
});

/**
 * The facts the layers judge: for a listing (`args` undefined) the static and declared risk and
 * capabilities; for a call, with its argument-derived risk and inherited capabilities.
 */
export function toolFacts(
  name: string,
  descriptor: ToolDescriptor | undefined,
  args?: unknown,
  argumentFacts?: ArgumentRiskFacts,
): { facts: ToolFacts; risk: RiskClassification } {
  const entry: CatalogEntry | undefined = catalogEntry(name);
  const risk = explainRisk(name, args, descriptor?.declaredRisk, argumentFacts);
  return {
    facts: {
      name,
      entry,
      external: entry === undefined && isMcpToolName(name),
      risk: risk.level,
      capabilities: capabilitiesOfCall(name, args, descriptor?.declaredCapabilities),
      state: descriptor?.state ?? NOT_PRESENT,
    },
    risk,
  };
}
