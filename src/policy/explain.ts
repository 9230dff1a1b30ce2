import { type Capability, profilesOf, type ToolProfile, type ToolSection } from "../catalog/index.js";
import type { ArgumentRiskFacts, RiskClassification } from "./classify-risk.js";
import { layerLabel, POLICY_LAYERS, type PolicyLayerId, removalReason } from "./layers.js";
import { prepareToolPolicy, type ToolPolicyInput, toolFacts } from "./prepare.js";
import { firstRemoval, type RemovedTool, resolvePreparedToolPolicy } from "./resolve-tool-policy.js";
import type { SessionPermissionPolicy, WorkspaceFence } from "./session-mode.js";
import type { NetworkPolicy } from "./settings.js";

/** A layer's verdict on one tool: keep, remove, defer (deferred loading), or skip (not reached). */
export const LAYER_VERDICTS = ["keep", "remove", "defer", "skip"] as const;
export type LayerVerdictKind = (typeof LAYER_VERDICTS)[number];

/** One layer's verdict with its reason. */
export interface LayerVerdict {
  readonly layer: PolicyLayerId;
  readonly label: string;
  readonly verdict: LayerVerdictKind;
  readonly reason: string;
}

/** A step of the approval gate, as the gate engineer's explain will fill it in. */
export interface GateStepVerdict {
  readonly step: number;
  readonly name: string;
  readonly verdict: "allow" | "deny" | "ask" | "next" | "skip";
  readonly reason: string;
}

/** The gate's part of an explanation; `evaluated` false until the gate's explain supplies it. */
export interface GateExplanation {
  readonly evaluated: boolean;
  readonly note: string;
  readonly steps: readonly GateStepVerdict[];
}

/** Why a tool is or is not available — the answer to "why can't my agent use this tool". */
export interface ToolExplanation {
  readonly tool: string;
  readonly kind: "catalog" | "external" | "unknown";
  readonly section: ToolSection | undefined;
  readonly reserved: boolean;
  /** Whether the input's candidates include the tool (an implementation is registered). */
  readonly present: boolean;
  /** Whether arguments were given (risk, capabilities and verdicts are then for that call). */
  readonly forCall: boolean;
  readonly risk: RiskClassification;
  readonly capabilities: readonly Capability[];
  readonly profiles: readonly ToolProfile[];
  /** Every layer's verdict, in order; layers after a removal are still judged ("would also remove"). */
  readonly layers: readonly LayerVerdict[];
  readonly outcome: "visible" | "deferred" | "removed";
  /** The first removal, when removed. */
  readonly removedBy: RemovedTool | undefined;
  readonly session: SessionPermissionPolicy;
  /** The run's path fence (strictest of the session mode and `tools.restrict_to_workspace`). */
  readonly fence: WorkspaceFence;
  readonly network: { readonly policy: NetworkPolicy; readonly allowedHosts: readonly string[] };
  /** The approval gate's steps for this call (filled in by the gate module's explain). */
  readonly gate: GateExplanation;
}

/** Options for {@link explainTool}. */
export interface ExplainToolOptions {
  /** The call's arguments; when given, risk and capabilities are those of this call. */
  args?: unknown;
  /** What the tool says about the call (isReadOnly / isDestructive). */
  argumentFacts?: ArgumentRiskFacts;
  /** The gate's verdicts, when the caller can evaluate them. */
  gate?: GateExplanation;
}

const GATE_NOT_EVALUATED: GateExplanation = {
  evaluated: false,
  note: "policy explain does not run the approval gate's steps yet",
  steps: [],
};

/**
 * Explains, layer by layer, whether `tool` is available under `input`, as data (the CLI renders it).
 * The outcome agrees with {@link resolveToolPolicy} for a listing, and with `checkToolCall` for a call.
 */
export function explainTool(
  input: ToolPolicyInput,
  tool: string,
  options: ExplainToolOptions = {},
): ToolExplanation {
  const prepared = prepareToolPolicy(input);
  const descriptor = prepared.descriptors.get(tool);
  const forCall = options.args !== undefined;
  const { facts, risk } = toolFacts(tool, descriptor, options.args, options.argumentFacts);
  const layers: LayerVerdict[] = POLICY_LAYERS.map((layer) => {
    const label = layerLabel(layer.id, prepared);
    const why = layer.removal(facts, prepared);
    return why === undefined
      ? { layer: layer.id, label, verdict: "keep" as const, reason: layer.note(facts, prepared) }
      : { layer: layer.id, label, verdict: "remove" as const, reason: removalReason(tool, label, why) };
  });
  const resolution = resolvePreparedToolPolicy(prepared);
  const removedBy = firstRemoval(facts, prepared) ?? resolution.removed.find((r) => r.tool === tool);
  const deferredLabel = layerLabel("deferred_loading", prepared);
  const deferredRemoval = resolution.removed.find((r) => r.tool === tool && r.layer === "deferred_loading");
  layers.push(
    deferredRemoval
      ? { layer: "deferred_loading", label: deferredLabel, verdict: "remove", reason: deferredRemoval.reason }
      : resolution.deferred.includes(tool)
        ? {
            layer: "deferred_loading",
            label: deferredLabel,
            verdict: "defer",
            reason: "deferred: sent to the model once tool_search finds it",
          }
        : resolution.visible.includes(tool)
          ? {
              layer: "deferred_loading",
              label: deferredLabel,
              verdict: "keep",
              reason: "loaded from the start",
            }
          : {
              layer: "deferred_loading",
              label: deferredLabel,
              verdict: "skip",
              reason: "not reached: an earlier layer removed the tool",
            },
  );
  const outcome = removedBy ? "removed" : resolution.deferred.includes(tool) ? "deferred" : "visible";
  return {
    tool,
    kind: facts.entry ? "catalog" : facts.external ? "external" : "unknown",
    section: facts.entry?.section,
    reserved: facts.entry?.reserved === true,
    present: descriptor !== undefined,
    forCall,
    risk,
    capabilities: facts.capabilities,
    profiles: profilesOf(tool),
    layers,
    outcome,
    removedBy,
    session: resolution.session,
    fence: resolution.fence,
    network: resolution.network,
    gate: options.gate ?? GATE_NOT_EVALUATED,
  };
}
