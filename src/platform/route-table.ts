/**
 * The kernel's routing tables as Linux prints them in `/proc/net/route` (IPv4) and
 * `/proc/net/ipv6_route` (IPv6), parsed without I/O: the worker asks whether a default route
 * exists instead of sending a packet to find out (see {@link readRouteTables} for the reading).
 */

/** The routing tables' text as read; a table that could not be read is undefined, with why in `errors`. */
export interface RouteTables {
  /** `/proc/net/route`. */
  readonly ipv4?: string | undefined;
  /** `/proc/net/ipv6_route` (absent when IPv6 is disabled). */
  readonly ipv6?: string | undefined;
  /** Why a table could not be read (`/proc/net/route: ENOENT`), for the "no network" reason. */
  readonly errors?: readonly string[];
}

/** One route of either table, as far as the default-route question needs it. */
export interface Route {
  readonly family: "IPv4" | "IPv6";
  readonly iface: string;
  /** True for 0.0.0.0/0 and ::/0. */
  readonly isDefault: boolean;
  /** The route's flags (RTF_*), as the kernel prints them in hex. */
  readonly flags: number;
}

/** RTF_UP: the route is usable. */
const RTF_UP = 0x0001;
/** RTF_REJECT: an unreachable / prohibit route (the kernel's `::/0 dev lo` placeholder is one). */
const RTF_REJECT = 0x0200;

const HEX = /^[0-9A-Fa-f]+$/;

/**
 * `/proc/net/route`: a header line, then `Iface Destination Gateway Flags RefCnt Use Metric Mask
 * MTU Window IRTT`, tab-separated, addresses in hex. Lines that do not have that shape (the header,
 * blank lines) are skipped.
 */
export function parseIpv4RouteTable(text: string): Route[] {
  const routes: Route[] = [];
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8) continue;
    const [iface, destination, , flags, , , , mask] = fields as [string, string, string, string, ...string[]];
    if (
      destination.length !== 8 ||
      ![destination, flags, mask].every((f) => f !== undefined && HEX.test(f))
    ) {
      continue;
    }
    routes.push({
      family: "IPv4",
      iface,
      isDefault: Number.parseInt(destination, 16) === 0 && Number.parseInt(mask as string, 16) === 0,
      flags: Number.parseInt(flags, 16),
    });
  }
  return routes;
}

/**
 * `/proc/net/ipv6_route`: no header; each line is `destination prefix_len source source_prefix_len
 * next_hop metric refcnt use flags iface`, space-separated, addresses as 32 hex digits.
 */
export function parseIpv6RouteTable(text: string): Route[] {
  const routes: Route[] = [];
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const [destination, prefix, , , , , , , flags, iface] = fields as [string, string, ...string[]];
    if (!/^[0-9A-Fa-f]{32}$/.test(destination) || !HEX.test(prefix) || !HEX.test(flags ?? "")) continue;
    routes.push({
      family: "IPv6",
      iface: iface as string,
      isDefault: /^0{32}$/.test(destination) && Number.parseInt(prefix, 16) === 0,
      flags: Number.parseInt(flags as string, 16),
    });
  }
  return routes;
}

/**
 * The first usable default route of the tables, if any: 0.0.0.0/0 or ::/0, up, not a reject route,
 * and not on the loopback interface (`lo`, or `*` for a route without a device). A default route
 * says the kernel would send a packet somewhere beyond this host; it does not prove the far side
 * answers, which only a probe of `execution.network_probe.targets` can.
 */
export function findDefaultRoute(tables: RouteTables): Route | undefined {
  const routes = [
    ...(tables.ipv4 === undefined ? [] : parseIpv4RouteTable(tables.ipv4)),
    ...(tables.ipv6 === undefined ? [] : parseIpv6RouteTable(tables.ipv6)),
  ];
  return routes.find(
    (r) =>
      r.isDefault &&
      (r.flags & RTF_UP) !== 0 &&
      (r.flags & RTF_REJECT) === 0 &&
      r.iface !== "lo" &&
      r.iface !== "*",
  );
}
