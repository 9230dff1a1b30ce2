import type { GateCall } from "./gate-input.js";

/**
 * The findings that flag a call, as ids a person can look up: the guard's rule when it asks, and
 * `tool.check` when the tool's own check asks. Settings that demand a person (exec ask always, a
 * guarded session, an unattended run's policy) are not findings: the decision's reason names them.
 */
export function callFindings(call: GateCall): string[] {
  const findings: string[] = [];
  if (call.guard?.verdict === "ask") findings.push(call.guard.rule);
  if (call.toolPermission?.behavior === "ask") findings.push("tool.check");
  return findings;
}
