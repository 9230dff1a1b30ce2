import { assertNever } from "../../shared/index.js";
import { type GateState, type GateStep, isFlagged, NEXT, type StepAnswer } from "../step.js";
/**
 * A write or exec call the guard has nothing against. An exec-level call counts only when it is an
 * `exec` command whose every simple command is a safe bin: code (execute_code) and background
 * processes are never judged safe by safe-bin profiles.
 */
export function isSafeSideEffect(state: GateState): boolean {
  const { call } = state;
  if (isFlagged(state)) return false;
  if (call.risk === "write") return true;
  if (call.risk === "exec") return call.tool === "exec" && call.guard?.safeBins === true;
  return false;
}

/**
 * Why the schedule's cron grant did not let this unattended call through, as it is: a run may hold
 * a grant that covers only unflagged write and exec calls. Text only: the step decides elsewhere.
 */
function grantStanding(state: GateState): string {
  const { call, ctx } = state;
  if (!ctx.cronAuthorized) return "its schedule holds no cron grant, and the call is not judged safe";
  if (isFlagged(state))
    return "the schedule's cron grant covers only unflagged calls, and this call is flagged";
  if (state.forceHuman) return "the schedule's cron grant does not cover a call a setting sends to a person";
  return `the schedule's cron grant covers write and exec calls, and this is a ${call.risk} call`;
}

/**
 * Step 4: unattended runs (seed 000's table). Read-only and not flagged → allow; cron-authorised
 * write/exec and not flagged → allow; dangerous → deny, always; otherwise `unattended_policy`:
 * deny → deny, allow_safe → allow write/exec judged safe, the rest goes straight to step 11 (a
 * sub-agent's call is denied, any other asks a person): steps 5-10 pass it on.
 */
export const unattendedStep: GateStep = {
  name: "unattended",
  run(state): StepAnswer {
    const { call, ctx, config } = state;
    if (!ctx.unattended) return NEXT;
    const flagged = isFlagged(state);
    if (call.risk === "dangerous") {
      return { verdict: "deny", reason: `Tool "${call.tool}" is dangerous and never runs unattended` };
    }
    if (call.risk === "read_only" && !flagged)
      return { verdict: "allow", reason: "read-only call in an unattended run" };
    if (
      ctx.cronAuthorized &&
      (call.risk === "write" || call.risk === "exec") &&
      !flagged &&
      !state.forceHuman
    ) {
      return {
        verdict: "allow",
        reason: `"${call.tool}" (${call.risk} risk) of a cron-authorised schedule, nothing flagged`,
      };
    }
    switch (config.unattendedPolicy) {
      case "deny":
        return {
          verdict: "deny",
          reason: flagged
            ? `unattended run, and ${grantStanding(state)} (${state.flags.join("; ")}); permissions.approval.unattended_policy is deny`
            : `unattended run, and ${grantStanding(state)}; permissions.approval.unattended_policy is deny`,
        };
      case "allow_safe":
        if (isSafeSideEffect(state) && !state.forceHuman) {
          return { verdict: "allow", reason: `${call.risk} call judged safe (unattended_policy allow_safe)` };
        }
        // Step 4 answers for every unattended call: what it does not judge safe goes straight to
        // a person (step 11), so no auto_approve entry, trusted channel, allow-always record or
        // smart approval (steps 5-10) can let an unattended call without a grant through.
        state.forceHuman = true;
        state.flags.push(`unattended run, and ${grantStanding(state)}`);
        return NEXT;
      default:
        return assertNever(config.unattendedPolicy, "unattended policy");
    }
  },
};

/**
 * Step 5: read-only and write calls that nobody flagged run (seed 000: write is auto-allowed when
 * interactive, protected by the path fences). An exec call counts only when every command is a safe
 * bin whose whole argv fits its profile (seed 000: exec needs an allowlist or an approval).
 */
export const lowRiskStep: GateStep = {
  name: "low_risk",
  run(state) {
    const { call } = state;
    if (isFlagged(state) || state.forceHuman) return NEXT;
    if (call.risk === "read_only" || call.risk === "write") {
      return { verdict: "allow", reason: `${call.risk} call, nothing flagged` };
    }
    if (call.risk === "exec" && isSafeSideEffect(state)) {
      return { verdict: "allow", reason: "every command is a safe bin with an allowed argv" };
    }
    return NEXT;
  },
};
