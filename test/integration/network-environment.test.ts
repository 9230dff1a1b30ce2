import { mkdtemp } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, type ToolName, toolSuccess } from "../../src/catalog/index.js";
import { createLogger } from "../../src/logging/index.js";
import { resolveToolPolicy } from "../../src/policy/index.js";
import { policyInputFromConfig, toolEnvironmentFromProbe } from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { testConfig } from "../helpers/agent-harness.js";

/**
 * seed 003 isEnabled from the real environment: the worker detects outbound network — by default
 * from the routing table (injected here) or a configured proxy, sending nothing; with explicit
 * targets by TCP connect (a local listener stands for the Internet, a refused port for its
 * absence; never a public host) — and a worker without it does not offer web_search.
 */

const logger = createLogger({ level: "silent", format: "json" });
let listener: Server;
let open: number;
let refused: number;

beforeAll(async () => {
  const listen = () =>
    new Promise<Server>((resolve) => {
      const s = createServer((socket) => socket.destroy());
      s.listen(0, "127.0.0.1", () => resolve(s));
    });
  listener = await listen();
  open = (listener.address() as { port: number }).port;
  const closed = await listen();
  refused = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(() => new Promise((resolve) => listener.close(resolve)));

async function config(target: string | undefined, networkPolicy = "allow") {
  return testConfig(await mkdtemp(`${tmpdir()}/echo-net-`), {
    security: { profile: "personal_cli" },
    execution: {
      network_policy: networkPolicy,
      ...(target === undefined ? {} : { network_probe: { targets: [target], timeout_ms: 2000 } }),
    },
  });
}

/** Real-format /proc/net/route text with only a local network route: no default route. */
const NO_DEFAULT_ROUTE =
  "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
  "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";

/** A registry with web_search (the catalog gives it network.outbound) and read_file. */
function registry() {
  const tool = (name: ToolName) =>
    defineTool({
      name,
      description: `${name} (test tool)`,
      parameters: Type.Object({}),
      riskLevel: "read_only",
      execute: async () => toolSuccess("ok"),
    });
  return createToolRegistry([tool("web_search"), tool("read_file")]);
}

describe("the worker's tool environment", () => {
  it("has network when a probe target accepts, and keeps web_search", async () => {
    const c = await config(`127.0.0.1:${open}`);
    const env = await toolEnvironmentFromProbe(c, {}, logger);
    expect(env).toEqual({ networkAvailable: true });
    const resolution = resolveToolPolicy(policyInputFromConfig(c, { tools: registry().describe(env) }));
    expect(resolution.allowed.has("web_search")).toBe(true);
  });

  it("has no network when every target refuses and no proxy is set, and then web_search is removed", async () => {
    const c = await config(`127.0.0.1:${refused}`);
    const env = await toolEnvironmentFromProbe(c, {}, logger);
    expect(env).toEqual({
      networkAvailable: false,
      networkUnavailableReason: `could not connect to 127.0.0.1:${refused} within 2000 ms`,
    });
    const resolution = resolveToolPolicy(policyInputFromConfig(c, { tools: registry().describe(env) }));
    expect(resolution.allowed.has("web_search")).toBe(false);
    expect(resolution.allowed.has("read_file")).toBe(true);
    expect(resolution.removed.find((r) => r.tool === "web_search")?.reason).toContain(
      "removed by layer tool_state: it is disabled",
    );
    expect(resolution.removed.find((r) => r.tool === "web_search")?.reason).toContain(
      `no outbound network: could not connect to 127.0.0.1:${refused} within 2000 ms`,
    );
  });

  it("by default reads the routing table and connects to nothing: no default route and no proxy → web_search removed, saying why", async () => {
    const c = await config(undefined);
    expect(c.execution.network_probe.targets).toEqual([]);
    let connects = 0;
    const env = await toolEnvironmentFromProbe(c, { PATH: "/usr/bin" }, logger, {
      probe: async () => {
        connects++;
        return true;
      },
      readRoutes: async () => ({ ipv4: NO_DEFAULT_ROUTE, ipv6: "" }),
    });
    expect(env).toEqual({
      networkAvailable: false,
      networkUnavailableReason: "no default route and no proxy configured",
    });
    expect(connects).toBe(0);
    const resolution = resolveToolPolicy(policyInputFromConfig(c, { tools: registry().describe(env) }));
    expect(resolution.allowed.has("web_search")).toBe(false);
    expect(resolution.allowed.has("read_file")).toBe(true);
    expect(resolution.removed.find((r) => r.tool === "web_search")?.reason).toContain(
      "no outbound network: no default route and no proxy configured",
    );
  });

  it("by default counts a configured proxy without a default route, connecting to nothing", async () => {
    const c = await config(undefined);
    const env = await toolEnvironmentFromProbe(c, { ALL_PROXY: "socks5://127.0.0.1:1" }, logger, {
      probe: async () => false,
      readRoutes: async () => ({ ipv4: NO_DEFAULT_ROUTE }),
    });
    expect(env).toEqual({ networkAvailable: true });
  });

  it("counts a reachable configured proxy", async () => {
    const c = await config(`127.0.0.1:${refused}`);
    expect(await toolEnvironmentFromProbe(c, { HTTPS_PROXY: `http://127.0.0.1:${open}` }, logger)).toEqual({
      networkAvailable: true,
    });
  });

  it("probes nothing when network_policy is deny", async () => {
    const c = await config(`127.0.0.1:${open}`, "deny");
    let asked = 0;
    const env = await toolEnvironmentFromProbe(c, {}, logger, {
      probe: async () => {
        asked++;
        return true;
      },
    });
    expect(env).toEqual({
      networkAvailable: false,
      networkUnavailableReason: "execution.network_policy is deny",
    });
    expect(asked).toBe(0);
  });
});
