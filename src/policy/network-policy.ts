import type { Capability } from "../catalog/index.js";
import type { NetworkPolicy } from "./settings.js";

/**
 * Why `execution.network_policy` removes a tool, or undefined when it keeps it. deny removes every
 * tool with `network.outbound`; restricted keeps them (each request is then checked with
 * {@link isHostAllowed}); allow keeps everything.
 */
export function networkPolicyRemoval(
  policy: NetworkPolicy,
  capabilities: Iterable<Capability>,
): string | undefined {
  if (policy !== "deny") return undefined;
  for (const capability of capabilities) {
    if (capability === "network.outbound") return "it makes outbound network requests (network.outbound)";
  }
  return undefined;
}

/** A note for explain when the policy keeps a network tool but limits it. */
export function networkPolicyNote(
  policy: NetworkPolicy,
  capabilities: Iterable<Capability>,
  allowedHosts: readonly string[],
): string | undefined {
  if (policy !== "restricted" || ![...capabilities].includes("network.outbound")) return undefined;
  return allowedHosts.length === 0
    ? "kept, but execution.allowed_hosts is empty, so every outbound request will be refused"
    : `kept; outbound requests only to ${allowedHosts.join(", ")}`;
}

/**
 * Whether a request to `host` is allowed under `execution.allowed_hosts`. A pattern is a host name
 * (exact, case-insensitive, trailing dot ignored), an IP literal (IPv6 with or without brackets), or
 * `*.example.com` (any subdomain, not example.com itself). Ports are not part of a host; strip them
 * first. Anything else — including `*` alone — never matches: a typo must not open the network.
 * This only matches names; the SSRF guard still decides whether the resolved address is internal.
 */
export function isHostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  const name = normaliseHost(host);
  if (name === "") return false;
  for (const pattern of allowedHosts) {
    const p = normaliseHost(pattern);
    if (validateHostPattern(pattern) !== undefined) continue;
    if (p.startsWith("*.")) {
      if (name.endsWith(p.slice(1)) && name.length > p.length - 1) return true;
    } else if (p === name) {
      return true;
    }
  }
  return false;
}

/**
 * Why a string is not a valid `execution.allowed_hosts` entry, or undefined when it is (for config
 * validation, so a bad entry is a start-up error rather than a silently dead rule).
 */
export function validateHostPattern(pattern: string): string | undefined {
  const p = normaliseHost(pattern);
  const body = p.startsWith("*.") ? p.slice(2) : p;
  if (body === "") return "is empty";
  if (body.includes("*")) return "may use * only as a leading *. (e.g. *.example.com)";
  if (/[/:@?#\s]/.test(body) && !isIpv6(body))
    return "must be a host name or IP address, without scheme, port or path";
  return undefined;
}

function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

function isIpv6(text: string): boolean {
  return /^[0-9a-f:.]+$/.test(text) && text.includes(":");
}
