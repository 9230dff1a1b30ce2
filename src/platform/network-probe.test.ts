import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  configuredProxy,
  parseHostPort,
  probeOutboundNetwork,
  type TcpProbe,
  tcpProbe,
} from "./network-probe.js";

/** Real-format /proc/net/route text: a header, and with or without a default route on eth0. */
const HEADER = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT";
const LAN = "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0";
const NO_DEFAULT_ROUTE = `${HEADER}\n${LAN}\n`;
const DEFAULT_ROUTE = `${HEADER}\neth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n${LAN}\n`;

/** A probe that records what it was asked and never connects: the default mode must not call it. */
function countingProbe() {
  const asked: string[] = [];
  const probe: TcpProbe = async (host, port) => {
    asked.push(`${host}:${port}`);
    return true;
  };
  return { asked, probe };
}

/** A local listener that accepts connections, and a port on which nothing listens (refused). */
let listener: Server;
let open: number;
let refused: number;

function listen(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

beforeAll(async () => {
  listener = await listen();
  open = (listener.address() as { port: number }).port;
  const closed = await listen();
  refused = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(() => new Promise((resolve) => listener.close(resolve)));

describe("probeOutboundNetwork with explicit targets (TCP connect; local sockets only)", () => {
  it("finds the network when a target accepts a connection (a local listener)", async () => {
    const result = await probeOutboundNetwork({
      targets: [`127.0.0.1:${refused}`, `127.0.0.1:${open}`],
      timeoutMs: 2000,
      env: {},
    });
    expect(result).toEqual({ available: true, detail: `connected to 127.0.0.1:${open}` });
  });

  it("finds none when every target refuses, naming what it tried", async () => {
    const result = await probeOutboundNetwork({
      targets: [`127.0.0.1:${refused}`],
      timeoutMs: 2000,
      env: {},
    });
    expect(result.available).toBe(false);
    expect(result.detail).toBe(`could not connect to 127.0.0.1:${refused} within 2000 ms`);
  });

  it("counts a configured proxy that accepts connections, and not one that refuses", async () => {
    const via = await probeOutboundNetwork({
      targets: [`127.0.0.1:${refused}`],
      timeoutMs: 2000,
      env: { HTTPS_PROXY: `http://127.0.0.1:${open}` },
    });
    expect(via).toEqual({
      available: true,
      detail: `connected to the proxy 127.0.0.1:${open} (HTTPS_PROXY)`,
    });
    const down = await probeOutboundNetwork({
      targets: [`127.0.0.1:${refused}`],
      timeoutMs: 2000,
      env: { http_proxy: `127.0.0.1:${refused}` },
    });
    expect(down.available).toBe(false);
    expect(down.detail).toContain(`proxy 127.0.0.1:${refused} (http_proxy)`);
  });

  it("asks an injected probe, in order, and stops at the first that connects", async () => {
    const asked: string[] = [];
    const probe: TcpProbe = async (host, port, timeoutMs) => {
      asked.push(`${host}:${port}/${timeoutMs}`);
      return host === "egress.internal";
    };
    const result = await probeOutboundNetwork({
      targets: ["10.0.0.1:443", "egress.internal:8443", "never.asked:1"],
      timeoutMs: 500,
      env: {},
      probe,
    });
    expect(result.available).toBe(true);
    expect(asked).toEqual(["10.0.0.1:443/500", "egress.internal:8443/500"]);
    const none = await probeOutboundNetwork({ targets: ["nonsense"], timeoutMs: 500, env: {}, probe });
    expect(none).toMatchObject({ available: false });
    expect(none.detail).toContain("nonsense (not host:port)");
  });

  it("a real TCP probe answers false on a refused port without waiting for its timeout", async () => {
    expect(await tcpProbe("127.0.0.1", refused, 60_000)).toBe(false);
  });

  it("with targets, reads no routing table", async () => {
    let read = 0;
    const result = await probeOutboundNetwork({
      targets: [`127.0.0.1:${refused}`],
      timeoutMs: 2000,
      env: {},
      readRoutes: async () => {
        read++;
        return { ipv4: DEFAULT_ROUTE };
      },
    });
    expect(result.available).toBe(false);
    expect(read).toBe(0);
  });

  it("parses host:port and proxies", () => {
    expect(parseHostPort("[::1]:443")).toEqual({ host: "::1", port: 443 });
    expect(parseHostPort("a.b:0")).toBeUndefined();
    expect(configuredProxy({ ALL_PROXY: "socks5://proxy.lan" })).toEqual({
      variable: "ALL_PROXY",
      host: "proxy.lan",
      port: 1080,
    });
    expect(configuredProxy({ HTTPS_PROXY: "https://proxy.lan" })?.port).toBe(443);
    expect(configuredProxy({})).toBeUndefined();
  });
});

describe("probeOutboundNetwork by default (no targets: nothing is sent)", () => {
  it("finds the network in a default route, connecting to nothing", async () => {
    const { asked, probe } = countingProbe();
    const result = await probeOutboundNetwork({
      targets: [],
      timeoutMs: 2000,
      env: {},
      probe,
      readRoutes: async () => ({ ipv4: DEFAULT_ROUTE, ipv6: "" }),
    });
    expect(result).toEqual({ available: true, detail: "default route on eth0 (IPv4)" });
    expect(asked).toEqual([]);
  });

  it("counts a configured proxy without a default route, connecting to nothing", async () => {
    const { asked, probe } = countingProbe();
    const result = await probeOutboundNetwork({
      targets: [],
      timeoutMs: 2000,
      env: { https_proxy: "http://proxy.lan:3128" },
      probe,
      readRoutes: async () => ({ ipv4: NO_DEFAULT_ROUTE }),
    });
    expect(result).toEqual({ available: true, detail: "proxy configured: https_proxy (proxy.lan:3128)" });
    expect(asked).toEqual([]);
  });

  it("finds none without a default route or a proxy, and says so", async () => {
    const { asked, probe } = countingProbe();
    const result = await probeOutboundNetwork({
      targets: [],
      timeoutMs: 2000,
      env: { PATH: "/usr/bin" },
      probe,
      readRoutes: async () => ({ ipv4: NO_DEFAULT_ROUTE, ipv6: "" }),
    });
    expect(result).toEqual({ available: false, detail: "no default route and no proxy configured" });
    expect(asked).toEqual([]);
  });

  it("fails closed when no routing table can be read, naming why and what to configure", async () => {
    const result = await probeOutboundNetwork({
      targets: [],
      timeoutMs: 2000,
      env: {},
      readRoutes: async () => ({ errors: ["/proc/net/route: ENOENT", "/proc/net/ipv6_route: ENOENT"] }),
    });
    expect(result.available).toBe(false);
    expect(result.detail).toBe(
      "the routing table could not be read (/proc/net/route: ENOENT, /proc/net/ipv6_route: ENOENT) and no proxy configured; list execution.network_probe.targets to probe by TCP instead",
    );
  });
});
