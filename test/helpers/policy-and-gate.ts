import { ApprovalGate, type GateConfig, type GateContext, type GateDecision } from "../../src/gate/index.js";
import { checkToolCall, type ToolPolicyInput, type ToolPolicyResolution } from "../../src/policy/index.js";
import { hashCanonical } from "../../src/shared/index.js";

/**
 * The gate as a fresh install configures it: no auto-approval, approval mode off, unattended calls
 * that need a person denied, exec on the allowlist asking on a miss, on the local host.
 */
export const GATE_CONFIG: GateConfig = {
  autoApprove: [],
  trustedChannels: [],
  cliAutoApprove: false,
  mode: "off",
  unattendedPolicy: "deny",
  smartModelConfigured: false,
  elevated: { enabled: false, allowFrom: {} },
  adminUsers: [],
  execSecurity: "allowlist",
  execAsk: "on-miss",
  execHost: "local",
  sessionExecMode: "auto",
};

/** A queued API run a person started (someone can be asked, not at a terminal). */
export const ATTENDED: GateContext = {
  unattended: false,
  cronAuthorized: false,
  channel: "api",
  userId: "ann",
  agentId: "agent-1",
  parentExecutionId: null,
  interactive: false,
};

/** A cron run nobody watches (no one to ask). */
export const UNATTENDED: GateContext = { ...ATTENDED, unattended: true, channel: "cron" };

/** A policy input over `tools` that narrows nothing: full profile, personal_cli, network allowed, no lists. */
export function openPolicyInput(tools: ToolPolicyInput["tools"]): ToolPolicyInput {
  return {
    tools,
    profile: "full",
    lists: [],
    securityProfile: "personal_cli",
    networkPolicy: "allow",
    allowedHosts: [],
    sessionMode: "full",
    restrictToWorkspace: true,
    jobSubsets: [],
    deferred: [],
  };
}

/** What policy, then the gate (over {@link GATE_CONFIG}), decide about one call, as the run loop asks them. */
export function policyThenGate(
  resolution: ToolPolicyResolution,
): (tool: string, args: Record<string, unknown>, ctx: GateContext) => Promise<GateDecision> {
  const gate = new ApprovalGate(GATE_CONFIG, {});
  return (tool, args, ctx) => {
    const policy = checkToolCall(resolution, tool, args);
    return gate.check({ tool, args, risk: policy.risk.level, argsHash: hashCanonical(args) }, ctx);
  };
}
