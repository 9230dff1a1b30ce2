import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  configuredProxy,
  parseHostPort,
  probeOutboundNetwork,
  type TcpProbe,
  tcpProbe,
} from "./network-probe.js";

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

describe("probeOutboundNetwork (seed 003: no network → no web search)", () => {
  it("finds the network when a target accepts a connection (a local listener)", async () => {
    const result = await probeOutboundNetwork({
      targets: [`127.0.0.1:${refused}`, `127.0.0.1:${open}`],
      timeoutMs: 2000,
      env: {},
    });
    expect(result).toEqual({ available: true, detail: `outbound network: connected to 127.0.0.1:${open}` });
  });

  it("finds none when every target refuses, naming what it tried", async () => {
    const result = await probeOutboundNetwork({
      targets: [`127.0.0.1:${refused}`],
      timeoutMs: 2000,
      env: {},
    });
    expect(result.available).toBe(false);
    expect(result.detail).toBe(
      `no outbound network: could not connect to 127.0.0.1:${refused} within 2000 ms`,
    );
  });

  it("counts a configured proxy that accepts connections, and not one that refuses", async () => {
    const via = await probeOutboundNetwork({
      targets: [`127.0.0.1:${refused}`],
      timeoutMs: 2000,
      env: { HTTPS_PROXY: `http://127.0.0.1:${open}` },
    });
    expect(via).toEqual({
      available: true,
      detail: `outbound network through the proxy 127.0.0.1:${open} (HTTPS_PROXY)`,
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
