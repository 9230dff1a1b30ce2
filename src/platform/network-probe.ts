import { connect } from "node:net";
import { readRouteTables } from "./read-route-tables.js";
import { findDefaultRoute, type RouteTables } from "./route-table.js";

/** Opens a TCP connection to host:port and closes it: true when it connected within the timeout. */
export type TcpProbe = (host: string, port: number, timeoutMs: number) => Promise<boolean>;

/** Options of {@link probeOutboundNetwork}. */
export interface NetworkProbeOptions {
  /**
   * `execution.network_probe.targets`: `host:port` addresses tried by TCP connect, in order. Empty
   * (the default): nothing is sent; the routing table and the proxy variables decide.
   */
  targets: readonly string[];
  /** `execution.network_probe.timeout_ms`: per connection attempt (only with targets). */
  timeoutMs: number;
  /** The process environment: a configured proxy (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY) counts too. */
  env: NodeJS.ProcessEnv;
  /** The connection attempt; a real TCP connect by default (tests inject one or use local sockets). */
  probe?: TcpProbe;
  /** The routing tables; {@link readRouteTables} (this process's `/proc/net`) by default. */
  readRoutes?: () => Promise<RouteTables>;
}

/** What the probe found: whether outbound network is there, and how it knows (or why not). */
export interface NetworkProbeResult {
  readonly available: boolean;
  /** "default route on eth0 (IPv4)"; "no default route and no proxy configured". */
  readonly detail: string;
}

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];

/** A real TCP connect with a timeout; any error (refused, unreachable, timeout) is false. */
export const tcpProbe: TcpProbe = (host, port, timeoutMs) =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });

/** `host:port` (`[v6]:port` for IPv6) as its parts, or undefined when malformed. */
export function parseHostPort(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: (match[1] ?? match[2]) as string, port };
}

/** The configured proxy as host and port (the first variable set; default port 80, 443 or 1080 for socks), if any. */
export function configuredProxy(
  env: NodeJS.ProcessEnv,
): { variable: string; host: string; port: number } | undefined {
  for (const variable of PROXY_VARIABLES) {
    const value = env[variable];
    if (!value) continue;
    try {
      const url = new URL(value.includes("://") ? value : `http://${value}`);
      const defaultPort = url.protocol === "https:" ? 443 : url.protocol === "http:" ? 80 : 1080;
      const port = url.port ? Number(url.port) : defaultPort;
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (host) return { variable, host, port };
    } catch {
      // A malformed proxy variable names no proxy; the next variable, the route or the targets still count.
    }
  }
  return undefined;
}

/**
 * seed 003 `isEnabled` from the real environment ("no network → no web search"): does this process
 * have outbound network? By default nothing is sent: a usable default route in the kernel's routing
 * table (IPv4 or IPv6, not on `lo`) or a configured proxy says yes. Only targets the operator lists
 * are connected to (then a connection to one of them, or to the configured proxy, says yes). A no
 * disables the network tools, and the tool_state layer names the reason. Runs once at worker
 * start: a worker started offline stays offline until restarted.
 */
export async function probeOutboundNetwork(options: NetworkProbeOptions): Promise<NetworkProbeResult> {
  if (options.targets.length > 0) return connectToTargets(options);
  const tables = await (options.readRoutes ?? readRouteTables)();
  const route = findDefaultRoute(tables);
  if (route) return { available: true, detail: `default route on ${route.iface} (${route.family})` };
  const proxy = configuredProxy(options.env);
  if (proxy) {
    return { available: true, detail: `proxy configured: ${proxy.variable} (${proxy.host}:${proxy.port})` };
  }
  if (tables.ipv4 === undefined && tables.ipv6 === undefined) {
    return {
      available: false,
      detail: `the routing table could not be read (${(tables.errors ?? []).join(", ") || "no table"}) and no proxy configured; list execution.network_probe.targets to probe by TCP instead`,
    };
  }
  return { available: false, detail: "no default route and no proxy configured" };
}

/** The operator's explicit targets, then the configured proxy, by TCP connect. */
async function connectToTargets(options: NetworkProbeOptions): Promise<NetworkProbeResult> {
  const probe = options.probe ?? tcpProbe;
  const tried: string[] = [];
  for (const target of options.targets) {
    const parsed = parseHostPort(target);
    if (!parsed) {
      tried.push(`${target} (not host:port)`);
      continue;
    }
    if (await probe(parsed.host, parsed.port, options.timeoutMs)) {
      return { available: true, detail: `connected to ${target}` };
    }
    tried.push(target);
  }
  const proxy = configuredProxy(options.env);
  if (proxy) {
    const where = `${proxy.host}:${proxy.port}`;
    if (await probe(proxy.host, proxy.port, options.timeoutMs)) {
      return { available: true, detail: `connected to the proxy ${where} (${proxy.variable})` };
    }
    tried.push(`proxy ${where} (${proxy.variable})`);
  }
  return {
    available: false,
    detail: `could not connect to ${tried.join(", ")} within ${options.timeoutMs} ms`,
  };
}
