import type { AllowAlwaysStore } from "./allow-always.js";
import type { GateStepName, GateVerdict } from "./decision.js";
import type { GateCall, GateConfig, GateContext, HumanApproval } from "./gate-input.js";
import type { SmartApprover } from "./smart-approval.js";

/** Injected ports: the gate itself does no I/O. */
export interface GatePorts {
  readonly allowAlways?: AllowAlwaysStore | undefined;
  readonly smartApprover?: SmartApprover | undefined;
}

/** What the steps know while the gate runs. Steps may only add flags, never remove them. */
export interface GateState {
  readonly call: GateCall;
  readonly ctx: GateContext;
  readonly config: GateConfig;
  readonly ports: GatePorts;
  readonly humanApproval: HumanApproval | undefined;
  /** Reasons a person should look (guard asks, the tool's own check, always-ask settings). */
  readonly flags: string[];
  /** Set when a setting demands a person for every such call (exec ask always, session mode ask). */
  forceHuman: boolean;
}

/** A step's answer: decide, or pass to the next step. */
export type StepAnswer =
  | { readonly verdict: GateVerdict; readonly reason: string }
  | { readonly verdict: "next" };

/** One of the 11 ordered steps. */
export interface GateStep {
  readonly name: GateStepName;
  run(state: GateState): StepAnswer | Promise<StepAnswer>;
}

export const NEXT: StepAnswer = Object.freeze({ verdict: "next" });

/** True when the call is flagged (a person should look). */
export function isFlagged(state: GateState): boolean {
  return state.flags.length > 0;
}
