import { describe, expect, it } from "vitest";
import { findDefaultRoute, parseIpv4RouteTable, parseIpv6RouteTable } from "./route-table.js";

/** Real-format `/proc/net/route` text (tab-separated, trailing padding as the kernel prints it). */
const IPV4_HEADER =
  "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT                                                       ";
const ipv4 = (...lines: string[]) => `${[IPV4_HEADER, ...lines].join("\n")}\n`;
const V4_DEFAULT_ETH0 =
  "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0                                                                               ";
const V4_LAN_ETH0 =
  "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0                                                                               ";
const V4_DEFAULT_DOWN = "wlan0\t00000000\t0101A8C0\t0002\t0\t0\t600\t00000000\t0\t0\t0";
const V4_UNREACHABLE_DEFAULT = "*\t00000000\t00000000\t0201\t0\t0\t0\t00000000\t0\t0\t0";
const V4_DEFAULT_LO = "lo\t00000000\t00000000\t0001\t0\t0\t0\t00000000\t0\t0\t0";
/** 0.0.0.0/1: destination 0 but not the default route (mask 128.0.0.0, as VPNs set it). */
const V4_HALF = "tun0\t00000000\t00000000\t0001\t0\t0\t0\t00000080\t0\t0\t0";

/** Real-format `/proc/net/ipv6_route` lines. */
const V6_DEFAULT_ETH0 =
  "00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0";
const V6_LO_REJECT =
  "00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo";
const V6_LOCAL_LO =
  "00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo";
const V6_LINK_LOCAL =
  "fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000002 00000000 00000001     eth0";

describe("parseIpv4RouteTable", () => {
  it("reads each route line and skips the header", () => {
    expect(parseIpv4RouteTable(ipv4(V4_DEFAULT_ETH0, V4_LAN_ETH0))).toEqual([
      { family: "IPv4", iface: "eth0", isDefault: true, flags: 3 },
      { family: "IPv4", iface: "eth0", isDefault: false, flags: 1 },
    ]);
  });

  it("skips lines without the kernel's shape", () => {
    expect(parseIpv4RouteTable("")).toEqual([]);
    expect(parseIpv4RouteTable("eth0 nothex 0 0003 0 0 0 00000000 0 0 0\nshort line\n")).toEqual([]);
  });
});

describe("parseIpv6RouteTable", () => {
  it("reads destination, prefix length, flags and interface", () => {
    expect(parseIpv6RouteTable(`${V6_LINK_LOCAL}\n${V6_DEFAULT_ETH0}\n`)).toEqual([
      { family: "IPv6", iface: "eth0", isDefault: false, flags: 1 },
      { family: "IPv6", iface: "eth0", isDefault: true, flags: 3 },
    ]);
  });
});

describe("findDefaultRoute", () => {
  it.each([
    ["an IPv4 default route on eth0", { ipv4: ipv4(V4_LAN_ETH0, V4_DEFAULT_ETH0) }, "eth0/IPv4"],
    [
      "an IPv6 ::/0 route on eth0 with no IPv4 default",
      { ipv4: ipv4(V4_LAN_ETH0), ipv6: V6_DEFAULT_ETH0 },
      "eth0/IPv6",
    ],
    ["only a local network route", { ipv4: ipv4(V4_LAN_ETH0) }, undefined],
    ["an empty table (a sandbox with its own network namespace)", { ipv4: ipv4(), ipv6: "" }, undefined],
    ["a default route that is not up", { ipv4: ipv4(V4_DEFAULT_DOWN) }, undefined],
    ["an unreachable default route", { ipv4: ipv4(V4_UNREACHABLE_DEFAULT) }, undefined],
    ["a default route on lo", { ipv4: ipv4(V4_DEFAULT_LO) }, undefined],
    ["0.0.0.0/1, which is not a default route", { ipv4: ipv4(V4_HALF) }, undefined],
    [
      "the kernel's ::/0 reject route on lo and ::1",
      { ipv4: ipv4(), ipv6: `${V6_LOCAL_LO}\n${V6_LO_REJECT}\n` },
      undefined,
    ],
    ["no table read at all", {}, undefined],
  ])("%s → %s", (_name, tables, expected) => {
    const route = findDefaultRoute(tables);
    expect(route ? `${route.iface}/${route.family}` : undefined).toBe(expected);
  });
});
