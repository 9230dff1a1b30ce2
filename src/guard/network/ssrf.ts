import type { GuardVerdictKind } from "../verdict/index.js";
import { classifyAddress, parseIp } from "./ip-ranges.js";

/** Rules of the URL check. */
export const URL_RULES = [
  "url.invalid",
  "url.scheme",
  "url.internal-host",
  "url.internal-address",
  "url.unresolved",
  "url.external",
] as const;
export type UrlRule = (typeof URL_RULES)[number];

/** Schemes a fetch may use. */
export const FETCHABLE_SCHEMES = ["http:", "https:"] as const;

/** The verdict for one URL. */
export interface UrlVerdict {
  verdict: GuardVerdictKind;
  rule: UrlRule;
  reason: string;
  /** True when the host is or resolves to anything not globally routable (or does not resolve). */
  internal: boolean;
  /** The host as the URL parser normalised it (brackets and trailing dots removed). */
  host: string;
  /**
   * The checked addresses the fetch layer must connect to (never re-resolving the name, so DNS
   * rebinding cannot swap in an internal address). Empty unless the verdict is allow.
   */
  connectTo: string[];
}

/** Resolves a host name to addresses. A rejection or an empty list means it does not resolve. */
export interface HostResolver {
  resolve(host: string): Promise<readonly string[]>;
}

const INTERNAL_NAMES = new Set([
  "localhost",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
  "metadata.tencentyun.com",
  "kubernetes",
  "kubernetes.default",
  "kubernetes.default.svc",
]);
const INTERNAL_SUFFIXES = [
  ".localhost",
  ".internal",
  ".local",
  ".localdomain",
  ".home.arpa",
  ".svc",
  ".cluster.local",
];

/** What is known about a URL before any DNS lookup. */
export type UrlTarget = { kind: "final"; verdict: UrlVerdict } | { kind: "name"; host: string };

function verdict(v: Omit<UrlVerdict, "connectTo"> & { connectTo?: string[] }): UrlVerdict {
  return { connectTo: [], ...v };
}

/**
 * Parses a URL with the WHATWG parser (which turns `2130706433`, `0x7f.1`, `127.1`, `%31%32%37...`
 * and full-width digits into dotted quads) and decides everything that needs no DNS: bad URLs and
 * schemes are denied, IP literals and internal names are judged; other names need a lookup.
 */
export function inspectUrl(raw: string): UrlTarget {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return {
      kind: "final",
      verdict: verdict({
        verdict: "deny",
        rule: "url.invalid",
        reason: `${JSON.stringify(raw)} is not a valid URL`,
        internal: false,
        host: "",
      }),
    };
  }
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();
  if (!(FETCHABLE_SCHEMES as readonly string[]).includes(url.protocol)) {
    return {
      kind: "final",
      verdict: verdict({
        verdict: "deny",
        rule: "url.scheme",
        reason: `the scheme ${url.protocol} cannot be fetched (only http and https)`,
        internal: false,
        host,
      }),
    };
  }
  if (host === "") {
    return {
      kind: "final",
      verdict: verdict({
        verdict: "deny",
        rule: "url.invalid",
        reason: "the URL has no host",
        internal: false,
        host,
      }),
    };
  }
  if (parseIp(host) !== undefined) return { kind: "final", verdict: judgeAddresses(host, [host]) };
  if (INTERNAL_NAMES.has(host) || INTERNAL_SUFFIXES.some((s) => host.endsWith(s)) || !host.includes(".")) {
    return {
      kind: "final",
      verdict: verdict({
        verdict: "ask",
        rule: "url.internal-host",
        reason: `${host} is a local, cluster or cloud-metadata host name`,
        internal: true,
        host,
      }),
    };
  }
  return { kind: "name", host };
}

function judgeAddresses(host: string, addresses: readonly string[]): UrlVerdict {
  const classes = addresses.map(classifyAddress);
  const internal = classes.find((c) => c.internal);
  if (internal) {
    const literal = addresses.length === 1 && addresses[0] === host;
    return verdict({
      verdict: "ask",
      rule: "url.internal-address",
      reason: literal
        ? `${host} is an internal address (${internal.range})`
        : `${host} resolves to the internal address ${internal.address} (${internal.range})`,
      internal: true,
      host,
    });
  }
  return verdict({
    verdict: "allow",
    rule: "url.external",
    reason: `${host} is a public address`,
    internal: false,
    host,
    connectTo: classes.map((c) => c.address),
  });
}

/**
 * The URL check with the addresses already resolved (pure). `resolved` undefined or empty means
 * the lookup failed, which counts as internal (fail closed). Every address must be external.
 */
export function checkUrlWithAddresses(raw: string, resolved: readonly string[] | undefined): UrlVerdict {
  const target = inspectUrl(raw);
  if (target.kind === "final") return target.verdict;
  if (resolved === undefined || resolved.length === 0) {
    return verdict({
      verdict: "ask",
      rule: "url.unresolved",
      reason: `${target.host} does not resolve, so where it points cannot be checked`,
      internal: true,
      host: target.host,
    });
  }
  return judgeAddresses(target.host, resolved);
}

/** The URL check with an injected resolver. */
export async function checkUrl(raw: string, resolver: HostResolver): Promise<UrlVerdict> {
  const target = inspectUrl(raw);
  if (target.kind === "final") return target.verdict;
  let addresses: readonly string[] | undefined;
  try {
    addresses = await resolver.resolve(target.host);
  } catch {
    addresses = undefined;
  }
  return checkUrlWithAddresses(raw, addresses);
}

/**
 * What is known about a bare host (an exec'd program's operand: `nc 10.0.0.1 80`, `ssh user@host`)
 * before any DNS lookup: every numeric IPv4 spelling (`0x7f.1`, `2130706433`) is normalised by the
 * WHATWG parser as for a URL, then judged like a URL's host.
 */
export function inspectHost(host: string): UrlTarget {
  const bare = host.replace(/^\[|\]$/g, "");
  const literal = bare.includes(":") ? `[${bare}]` : bare;
  const target = inspectUrl(`http://${literal}/`);
  if (target.kind === "final" && target.verdict.rule === "url.invalid") {
    return {
      kind: "final",
      verdict: verdict({
        verdict: "ask",
        rule: "url.invalid",
        reason: `${JSON.stringify(host)} is not a host name or address the guard can judge`,
        internal: true,
        host,
      }),
    };
  }
  return target;
}

/** The host check with the addresses already resolved (pure); see {@link checkUrlWithAddresses}. */
export function checkHostWithAddresses(host: string, resolved: readonly string[] | undefined): UrlVerdict {
  const bare = host.replace(/^\[|\]$/g, "");
  return checkUrlWithAddresses(`http://${bare.includes(":") ? `[${bare}]` : bare}/`, resolved);
}

/** The host check with an injected resolver, as {@link checkUrl} does for URLs. */
export async function checkHost(host: string, resolver: HostResolver): Promise<UrlVerdict> {
  const target = inspectHost(host);
  if (target.kind === "final") return target.verdict;
  let addresses: readonly string[] | undefined;
  try {
    addresses = await resolver.resolve(target.host);
  } catch {
    addresses = undefined;
  }
  return checkHostWithAddresses(target.host, addresses);
}
