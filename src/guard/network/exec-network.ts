import { isHostAllowed, type NetworkPolicy } from "../../policy/index.js";
import type { GuardVerdictKind } from "../verdict/index.js";
import type { NetworkTarget } from "./network-targets.js";
import { checkHost, type HostResolver } from "./ssrf.js";

/**
 * The network check of an exec'd command, made per call where `web_fetch`'s is: each host a
 * network program connects to goes through `execution.network_policy` (deny → deny; restricted →
 * only `execution.allowed_hosts`) and the SSRF check, names resolved once through the injected
 * resolver (a name that does not resolve, or resolves to an internal address, asks). Literal
 * addresses and internal names were already judged by the pure guard; judging them again here
 * changes nothing, since the strictest verdict wins.
 */

/** Rules of the exec network check. */
export const EXEC_NETWORK_RULES = [
  "exec.network-denied",
  "exec.network-restricted",
  "exec.network-internal",
  "exec.network-unknown-host",
] as const;
export type ExecNetworkRule = (typeof EXEC_NETWORK_RULES)[number];

/** The answer for one command's targets; undefined when nothing needs saying. */
export interface ExecNetworkVerdict {
  verdict: Exclude<GuardVerdictKind, "allow">;
  rule: ExecNetworkRule;
  reason: string;
}

/** Inputs of {@link checkExecNetwork}. */
export interface ExecNetworkOptions {
  networkPolicy: NetworkPolicy;
  allowedHosts: readonly string[];
  resolver: HostResolver;
}

/** Checks the hosts a command connects to; the first deny wins, else the first ask. */
export async function checkExecNetwork(
  targets: readonly NetworkTarget[],
  options: ExecNetworkOptions,
): Promise<ExecNetworkVerdict | undefined> {
  if (targets.length === 0) return undefined;
  const shown = (t: NetworkTarget) => `${t.program} → ${t.host}`;
  if (options.networkPolicy === "deny") {
    return {
      verdict: "deny",
      rule: "exec.network-denied",
      reason: `the command reaches the network (${targets.map(shown).join(", ")}) and execution.network_policy is deny`,
    };
  }
  let ask: ExecNetworkVerdict | undefined;
  for (const t of targets) {
    if (
      options.networkPolicy === "restricted" &&
      (t.dynamic || !isHostAllowed(t.host, options.allowedHosts))
    ) {
      if (t.dynamic) {
        ask ??= {
          verdict: "ask",
          rule: "exec.network-unknown-host",
          reason: `${shown(t)} is known only at run time, so it cannot be checked against execution.allowed_hosts`,
        };
        continue;
      }
      return {
        verdict: "deny",
        rule: "exec.network-restricted",
        reason: `${t.host} is not in execution.allowed_hosts (network_policy is restricted; ${t.program} connects to it)`,
      };
    }
    if (t.dynamic || t.sshAlias) continue;
    const verdict = await checkHost(t.host, options.resolver);
    if (verdict.verdict !== "allow")
      ask ??= { verdict: "ask", rule: "exec.network-internal", reason: `${t.program}: ${verdict.reason}` };
  }
  return ask;
}
