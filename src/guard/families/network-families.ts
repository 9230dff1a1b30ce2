import { inspectHost, invocationTargets, type NetworkTarget } from "../network/index.js";
import type { Invocation } from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";

/**
 * The part of the network check that needs no DNS, so the pure guard can make it: a network
 * program aimed at an internal address or name (loopback, private, link-local, cloud metadata, in
 * every spelling the SSRF check knows) needs approval, as `web_fetch` does; so does one whose host
 * is known only at run time. Names that need a lookup are checked per call by the caller (the
 * agent's call guard), which resolves them once, as it does for `web_fetch`, and applies
 * `execution.network_policy`.
 */

/** The finding for one target, if the guard can judge it without DNS. */
export function judgeTarget(t: NetworkTarget): GuardFinding | undefined {
  if (t.dynamic)
    return softFinding(
      "soft.network-unknown-host",
      `${t.program} connects to ${t.host}, a host known only at run time`,
    );
  // An SSH alias is judged only when it is itself a local or metadata name.
  if (t.sshAlias && !/^(localhost|metadata|instance-data|kubernetes)$/.test(t.host)) return undefined;
  const inspected = inspectHost(t.host);
  if (inspected.kind === "final" && inspected.verdict.verdict !== "allow")
    return softFinding(
      "soft.network-internal",
      `${t.program} connects to ${t.host}: ${inspected.verdict.reason}`,
    );
  return undefined;
}

/** Network findings for one invocation. */
export function networkFindings(inv: Invocation): GuardFinding[] {
  const out: GuardFinding[] = [];
  for (const t of invocationTargets(inv)) {
    const f = judgeTarget(t);
    if (f) out.push(f);
  }
  return out;
}
