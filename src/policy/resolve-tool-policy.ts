import type { Capability, ToolDescriptor } from "../catalog/index.js";
import type { ArgumentRiskFacts, RiskClassification } from "./classify-risk.js";
import { layerLabel, POLICY_LAYERS, type PolicyLayerId, removalReason } from "./layers.js";
import {
  type PreparedToolPolicy,
  prepareToolPolicy,
  type ToolFacts,
  type ToolPolicyInput,
  toolFacts,
} from "./prepare.js";
import { resolveWorkspaceFence, type SessionPermissionPolicy, type WorkspaceFence } from "./session-mode.js";
import type { NetworkPolicy } from "./settings.js";
import { matchesToolPattern } from "./tool-lists.js";

/** A tool a layer removed, and why. */
export interface RemovedTool {
  readonly tool: string;
  readonly layer: PolicyLayerId;
  /** The layer with its setting ("security_profile=daemon"). */
  readonly label: string;
  /** `Tool "exec" removed by layer security_profile=daemon: <why>`. */
  readonly reason: string;
}

/** The tools an agent may use, and for every other candidate the layer that removed it. */
export interface ToolPolicyResolution {
  /** Sent to the model from the start, in input order. */
  readonly visible: readonly string[];
  /** Allowed, but sent to the model only once tool_search finds them. */
  readonly deferred: readonly string[];
  /** visible ∪ deferred: what `ToolExecutionContext.allowedTools` holds. */
  readonly allowed: ReadonlySet<string>;
  /** Every candidate that did not survive, with the first layer that removed it. */
  readonly removed: readonly RemovedTool[];
  /** Descriptors of the allowed tools (schemas and search text). */
  readonly loadable: ReadonlyMap<string, ToolDescriptor>;
  readonly session: SessionPermissionPolicy;
  /** The run's path fence: the strictest of the session mode and `tools.restrict_to_workspace`. */
  readonly fence: WorkspaceFence;
  readonly network: { readonly policy: NetworkPolicy; readonly allowedHosts: readonly string[] };
  /** The prepared input, for {@link checkToolCall}. */
  readonly prepared: PreparedToolPolicy;
}

/**
 * Resolves which tools an agent sees (docs/DESIGN.md §4): the candidates pass the ordered layers, each of
 * which can only remove, then deferred loading splits the survivors into visible and deferred.
 * Pure; microseconds for the whole catalog.
 */
export function resolveToolPolicy(input: ToolPolicyInput): ToolPolicyResolution {
  return resolvePreparedToolPolicy(prepareToolPolicy(input));
}

/** {@link resolveToolPolicy} for an input prepared once and reused. */
export function resolvePreparedToolPolicy(prepared: PreparedToolPolicy): ToolPolicyResolution {
  const removed: RemovedTool[] = [];
  const survivors: ToolDescriptor[] = [];
  for (const descriptor of prepared.input.tools) {
    const hit = firstRemoval(toolFacts(descriptor.name, descriptor).facts, prepared);
    if (hit) removed.push(hit);
    else survivors.push(descriptor);
  }
  const deferredLabel = layerLabel("deferred_loading", prepared);
  const isDeferred = (d: ToolDescriptor) =>
    d.name !== "tool_search" &&
    (d.shouldDefer || prepared.input.deferred.some((p) => matchesToolPattern(p, d.name)));
  const deferredCount = survivors.filter(isDeferred).length;
  const searchAvailable = survivors.some((d) => d.name === "tool_search");
  const visible: string[] = [];
  const deferred: string[] = [];
  const loadable = new Map<string, ToolDescriptor>();
  for (const d of survivors) {
    let why: string | undefined;
    if (d.name === "tool_search" && deferredCount === 0) {
      why = "no tool is deferred, so tool_search has nothing to find";
    } else if (isDeferred(d) && !searchAvailable) {
      why = "it is deferred (loaded only through tool_search) and tool_search is not available";
    }
    if (why !== undefined) {
      removed.push({
        tool: d.name,
        layer: "deferred_loading",
        label: deferredLabel,
        reason: removalReason(d.name, deferredLabel, why),
      });
      continue;
    }
    (isDeferred(d) ? deferred : visible).push(d.name);
    loadable.set(d.name, d);
  }
  return {
    visible,
    deferred,
    allowed: new Set([...visible, ...deferred]),
    removed,
    loadable,
    session: prepared.session,
    fence: resolveWorkspaceFence(prepared.session, prepared.input.restrictToWorkspace),
    network: { policy: prepared.input.networkPolicy, allowedHosts: prepared.input.allowedHosts },
    prepared,
  };
}

/** The first per-tool layer that removes a tool, or undefined when every layer keeps it. */
export function firstRemoval(facts: ToolFacts, prepared: PreparedToolPolicy): RemovedTool | undefined {
  for (const layer of POLICY_LAYERS) {
    const why = layer.removal(facts, prepared);
    if (why !== undefined) {
      const label = layerLabel(layer.id, prepared);
      return { tool: facts.name, layer: layer.id, label, reason: removalReason(facts.name, label, why) };
    }
  }
  return undefined;
}

/** Policy's verdict on one call, with its risk and capabilities. */
export interface ToolCallPolicyDecision {
  readonly allowed: boolean;
  /** Why not, when not allowed. */
  readonly removedBy: RemovedTool | undefined;
  readonly risk: RiskClassification;
  readonly capabilities: readonly Capability[];
}

/**
 * Re-checks one call against the layers with its arguments (risk and capabilities derived from the
 * arguments can only raise, so a call can be refused although its tool is listed: delegate_task
 * handing its child exec under daemon). A tool not in `resolution.allowed` is refused with the
 * removal that took it out.
 */
export function checkToolCall(
  resolution: ToolPolicyResolution,
  name: string,
  args: unknown,
  argumentFacts?: ArgumentRiskFacts,
): ToolCallPolicyDecision {
  const { prepared } = resolution;
  const { facts, risk } = toolFacts(name, prepared.descriptors.get(name), args, argumentFacts);
  const callRemoval = firstRemoval(facts, prepared);
  let removedBy = callRemoval;
  if (!removedBy && !resolution.allowed.has(name)) {
    removedBy = resolution.removed.find((r) => r.tool === name) ?? {
      tool: name,
      layer: "tool_state",
      label: "tool_state",
      reason: removalReason(name, "tool_state", "it is not present (no implementation is registered)"),
    };
  }
  return { allowed: removedBy === undefined, removedBy, risk, capabilities: facts.capabilities };
}
