import ipaddr from "ipaddr.js";

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

function cidrs(list: readonly string[]): Array<{ cidr: Cidr; label: string }> {
  return list.map((entry) => {
    const [range, label = range] = entry.split(" ");
    return { cidr: ipaddr.parseCIDR(range as string), label: label as string };
  });
}

// IANA IPv4 Special-Purpose Address Registry: nothing here is globally reachable.
const V4_INTERNAL = cidrs([
  "0.0.0.0/8 this-network",
  "10.0.0.0/8 private",
  "100.64.0.0/10 carrier-grade-nat",
  "127.0.0.0/8 loopback",
  "169.254.0.0/16 link-local(cloud-metadata)",
  "172.16.0.0/12 private",
  "192.0.0.0/24 ietf-protocol",
  "192.0.2.0/24 documentation",
  "192.88.99.0/24 6to4-relay",
  "192.168.0.0/16 private",
  "198.18.0.0/15 benchmarking",
  "198.51.100.0/24 documentation",
  "203.0.113.0/24 documentation",
  "224.0.0.0/4 multicast",
  "240.0.0.0/4 reserved(incl.broadcast)",
]);

// Inside 2000::/3 (global unicast) these are still not globally reachable.
const V6_INTERNAL_IN_GLOBAL = cidrs([
  "2001::/23 ietf-protocol(incl.teredo)",
  "2001:db8::/32 documentation",
  "3fff::/20 documentation",
]);
const V6_GLOBAL = ipaddr.parseCIDR("2000::/3");
const V6_6TO4 = ipaddr.parseCIDR("2002::/16");
const V6_NAT64 = ipaddr.parseCIDR("64:ff9b::/96");
const V6_MAPPED = ipaddr.parseCIDR("::ffff:0:0/96");
const V6_COMPAT = ipaddr.parseCIDR("::/96");

/** How one address was classified. */
export interface AddressClass {
  internal: boolean;
  /** What range decided it (`loopback`, `private`, `ipv4-mapped:loopback`, `global`, ...). */
  range: string;
  /** The address in canonical form. */
  address: string;
}

function v4(address: ipaddr.IPv4): AddressClass {
  for (const { cidr, label } of V4_INTERNAL) {
    if (address.match(cidr as [ipaddr.IPv4, number]))
      return { internal: true, range: label, address: address.toString() };
  }
  return { internal: false, range: "global", address: address.toString() };
}

function embeddedV4(bytes: number[], offset: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(offset, offset + 4));
}

function v6(address: ipaddr.IPv6): AddressClass {
  const text = address.toString();
  const bytes = address.toByteArray();
  const via = (label: string, inner: AddressClass): AddressClass => ({
    internal: inner.internal,
    range: `${label}:${inner.range}`,
    address: text,
  });
  if (address.match(V6_MAPPED)) return via("ipv4-mapped", v4(embeddedV4(bytes, 12)));
  if (address.match(V6_NAT64)) return via("nat64", v4(embeddedV4(bytes, 12)));
  if (address.match(V6_6TO4)) {
    const inner = v4(embeddedV4(bytes, 2));
    return via("6to4", inner);
  }
  if (address.match(V6_COMPAT)) {
    const range = text === "::" ? "unspecified" : text === "::1" ? "loopback" : "ipv4-compatible";
    return { internal: true, range, address: text };
  }
  if (!address.match(V6_GLOBAL)) return { internal: true, range: address.range(), address: text };
  for (const { cidr, label } of V6_INTERNAL_IN_GLOBAL) {
    if (address.match(cidr as [ipaddr.IPv6, number])) return { internal: true, range: label, address: text };
  }
  return { internal: false, range: "global", address: text };
}

/** Parses an IP address (IPv6 may carry brackets or a zone); undefined when it is not one. */
export function parseIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return undefined;
  // ipaddr.js accepts IPv4 shorthands (`127.1`, `0x7f.1`); the WHATWG URL parser has already turned
  // a URL host into dotted quads, and DNS answers are dotted quads, so every spelling ends up here.
  return ipaddr.parse(bare);
}

/** Classifies an address: internal when not globally routable (embedded IPv4 in IPv6 included). */
export function classifyAddress(text: string): AddressClass {
  const parsed = parseIp(text);
  if (parsed === undefined) return { internal: true, range: "not-an-address", address: text };
  return parsed.kind() === "ipv4" ? v4(parsed as ipaddr.IPv4) : v6(parsed as ipaddr.IPv6);
}
