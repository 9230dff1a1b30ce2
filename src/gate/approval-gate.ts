import type { GateDecision } from "./decision.js";
import type { GateCall, GateConfig, GateContext, HumanApproval } from "./gate-input.js";
import type { GatePorts, GateState, GateStep } from "./step.js";
import { allowAlwaysStep, humanStep, smartApprovalStep } from "./steps/final-steps.js";
import { elevationStep, riskStep, staticGuardStep } from "./steps/guard-steps.js";
import { autoApproveStep, cliAutoApproveStep, trustedChannelStep } from "./steps/shortcut-steps.js";
import { lowRiskStep, unattendedStep } from "./steps/unattended-steps.js";

/** Seed 000's 11 steps, in order. The first answer that is not "next" decides. */
export const GATE_STEP_LIST: readonly GateStep[] = [
  staticGuardStep,
  elevationStep,
  riskStep,
  unattendedStep,
  lowRiskStep,
  autoApproveStep,
  cliAutoApproveStep,
  trustedChannelStep,
  allowAlwaysStep,
  smartApprovalStep,
  humanStep,
];

/** Options for {@link ApprovalGate.check}. */
export interface GateCheckOptions {
  /** A person's approval of this call, read back after a park. */
  humanApproval?: HumanApproval | undefined;
}

/**
 * ApprovalGate.check (seed 000): pure, with the allow-always store and the smart-approval model
 * injected. Every decision is data; the caller writes it to the audit trail.
 */
export class ApprovalGate {
  constructor(
    private readonly config: GateConfig,
    private readonly ports: GatePorts = {},
  ) {}

  async check(call: GateCall, ctx: GateContext, options: GateCheckOptions = {}): Promise<GateDecision> {
    return (await this.explain(call, ctx, options)).decision;
  }

  /**
   * check() with every step's answer: the steps before the deciding one answered "next", the
   * deciding one its verdict, the ones after it were not reached ("skip"). For `policy explain`.
   */
  async explain(
    call: GateCall,
    ctx: GateContext,
    options: GateCheckOptions = {},
  ): Promise<{ decision: GateDecision; steps: GateStepTrace[] }> {
    const steps: GateStepTrace[] = [];
    const state: GateState = {
      call,
      ctx,
      config: this.config,
      ports: this.ports,
      humanApproval: options.humanApproval,
      flags: [],
      forceHuman: false,
    };
    for (const [index, step] of GATE_STEP_LIST.entries()) {
      const answer = await step.run(state);
      if (answer.verdict === "next") {
        steps.push({ step: index + 1, name: step.name, verdict: "next", reason: "passed on" });
        continue;
      }
      steps.push({ step: index + 1, name: step.name, verdict: answer.verdict, reason: answer.reason });
      for (const [later, rest] of GATE_STEP_LIST.entries()) {
        if (later > index)
          steps.push({ step: later + 1, name: rest.name, verdict: "skip", reason: "not reached" });
      }
      const human = answer.verdict === "allow" && step.name === "human";
      const decision: GateDecision = {
        verdict: answer.verdict,
        step: index + 1,
        stepName: step.name,
        reason: answer.reason,
        risk: call.risk,
        flagged: state.flags.length > 0,
        approvalSource: human ? "human" : "auto",
      };
      return { decision, steps };
    }
    // humanStep always answers; reaching here would be a bug, and the safe answer is no.
    const decision: GateDecision = {
      verdict: "deny",
      step: 11,
      stepName: "human",
      reason: "no step decided (internal error); denied",
      risk: call.risk,
      flagged: state.flags.length > 0,
      approvalSource: "auto",
    };
    return { decision, steps };
  }
}

/** One step's answer in {@link ApprovalGate.explain}. */
export interface GateStepTrace {
  readonly step: number;
  readonly name: string;
  readonly verdict: "allow" | "deny" | "ask" | "next" | "skip";
  readonly reason: string;
}
