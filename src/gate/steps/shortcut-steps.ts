import { type GateStep, isFlagged, NEXT } from "../step.js";

/**
 * Step 6: `permissions.approval.auto_approve`. Never for dangerous or flagged calls, and not in
 * strict mode (strict leaves only allow-always records or a person).
 */
export const autoApproveStep: GateStep = {
  name: "auto_approve",
  run(state) {
    const { call, config } = state;
    if (call.risk === "dangerous" || isFlagged(state) || state.forceHuman || config.mode === "strict")
      return NEXT;
    if (!config.autoApprove.includes(call.tool)) return NEXT;
    return { verdict: "allow", reason: `"${call.tool}" is in permissions.approval.auto_approve` };
  },
};

/**
 * Step 7: CLI auto-approval (seed 000): an interactive CLI session, not nested, not dangerous, not
 * flagged, and not in strict mode.
 */
export const cliAutoApproveStep: GateStep = {
  name: "cli_auto_approve",
  run(state) {
    const { call, config, ctx } = state;
    if (!config.cliAutoApprove || config.mode === "strict") return NEXT;
    if (call.risk === "dangerous" || isFlagged(state) || state.forceHuman) return NEXT;
    if (ctx.channel !== "cli" || !ctx.interactive || ctx.unattended || ctx.parentExecutionId !== null)
      return NEXT;
    return { verdict: "allow", reason: "interactive CLI session with permissions.approval.cli_auto_approve" };
  },
};

/** Step 8: trusted channels (exec may pass; dangerous never), not flagged, not in strict mode. */
export const trustedChannelStep: GateStep = {
  name: "trusted_channel",
  run(state) {
    const { call, config, ctx } = state;
    if (config.mode === "strict" || call.risk === "dangerous" || isFlagged(state) || state.forceHuman)
      return NEXT;
    if (!config.trustedChannels.includes(ctx.channel)) return NEXT;
    return {
      verdict: "allow",
      reason: `channel "${ctx.channel}" is in permissions.approval.trusted_channels`,
    };
  },
};
