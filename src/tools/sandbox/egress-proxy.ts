import { createConnection, createServer, isIP, type Server, type Socket } from "node:net";
import type { HostLookup, HostPolicy, UrlChecker } from "../web/web-ports.js";

/** The proxy's ports: the guard's SSRF check, a resolver, and the network policy's host check. */
export interface EgressProxyOptions {
  /** SSRF check of `http://host:port/` (resolves once; allow carries the vetted addresses). */
  readonly checkUrl: UrlChecker;
  /** Resolves a host named explicitly in allowed_hosts whose address is internal. */
  readonly lookup: HostLookup;
  /** `execution.network_policy` for one host: undefined when it may be contacted. */
  readonly hostPolicy: HostPolicy;
  /** `execution.allowed_hosts`: an internal address is reached only when its host is named here exactly. */
  readonly allowedHosts: readonly string[];
  /** Called for every refused connection, with the reason (for the log). */
  readonly onRefused?: (target: string, reason: string) => void;
}

/** Longest request head the proxy reads before deciding, bytes. */
const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_TIMEOUT_MS = 10_000;

type Target = { host: string; port: number };

function parseTarget(head: string): { target: Target; connect: boolean } | string {
  const line = head.slice(0, head.indexOf("\r\n"));
  const [method, uri] = line.split(" ");
  if (method === undefined || uri === undefined) return "malformed request line";
  if (method === "CONNECT") {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s/]+):(\d{1,5})$/.exec(uri);
    if (!match?.[1] || !match[2]) return `CONNECT needs host:port, got ${uri}`;
    return { target: { host: match[1].replace(/^\[|\]$/g, ""), port: Number(match[2]) }, connect: true };
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `a proxy request needs an absolute http URL, got ${uri}`;
  }
  if (url.protocol !== "http:")
    return `only http URLs are proxied in the clear (use CONNECT for ${url.protocol})`;
  return {
    target: { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port || 80) },
    connect: false,
  };
}

/** The request with its absolute-form request line rewritten to origin form (`GET /path HTTP/1.1`). */
function originForm(received: Buffer, headLength: number): Buffer {
  const head = received.subarray(0, headLength).toString("latin1");
  const lineEnd = head.indexOf("\r\n");
  const [method, uri, version] = head.slice(0, lineEnd).split(" ");
  const url = new URL(uri ?? "/");
  const line = `${method} ${url.pathname}${url.search} ${version}`;
  return Buffer.concat([Buffer.from(line + head.slice(lineEnd), "latin1"), received.subarray(headLength)]);
}

function namedExactly(host: string, allowed: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return allowed.some(
    (a) =>
      a
        .toLowerCase()
        .replace(/^\[|\]$/g, "")
        .replace(/\.$/, "") === h,
  );
}

/**
 * Decides where one connection may go: the network policy first, then the SSRF check (one DNS
 * resolution, every address judged). An internal address is reached only when its host is named
 * exactly in allowed_hosts (no wildcard), whatever a person approved. Returns the addresses to
 * connect to (never resolved again: no DNS-rebinding gap) or why not.
 */
export async function decideEgress(
  options: EgressProxyOptions,
  target: Target,
): Promise<{ ok: true; addresses: readonly string[] } | { ok: false; reason: string }> {
  if (!(target.port > 0 && target.port < 65536))
    return { ok: false, reason: `port ${target.port} is invalid` };
  const refusal = options.hostPolicy(target.host);
  if (refusal !== undefined) return { ok: false, reason: refusal };
  const shown = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  const check = await options.checkUrl(`http://${shown}:${target.port}/`);
  if (check.verdict === "allow" && check.connectTo.length > 0)
    return { ok: true, addresses: check.connectTo };
  if (check.verdict === "ask" && namedExactly(target.host, options.allowedHosts)) {
    const addresses = isIP(target.host) ? [target.host] : await options.lookup(target.host).catch(() => []);
    if (addresses.length > 0) return { ok: true, addresses };
    return { ok: false, reason: `${target.host} does not resolve` };
  }
  return {
    ok: false,
    reason:
      check.verdict === "ask"
        ? `${check.reason}; an internal address is reached from the sandbox only when its host is named in execution.allowed_hosts`
        : check.reason,
  };
}

function refuse(client: Socket, status: string, reason: string): void {
  const body = `echo-runner sandbox proxy: ${reason}\n`;
  client.end(
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function connectFirst(addresses: readonly string[], port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    let index = 0;
    const attempt = () => {
      const address = addresses[index++];
      if (address === undefined) {
        reject(new Error("no address answered"));
        return;
      }
      const socket = createConnection({ host: address, port });
      socket.once("connect", () => {
        socket.removeAllListeners("error");
        resolve(socket);
      });
      socket.once("error", () => {
        socket.destroy();
        attempt();
      });
    };
    attempt();
  });
}

function handle(client: Socket, options: EgressProxyOptions): void {
  let head = Buffer.alloc(0);
  client.setTimeout(HEAD_TIMEOUT_MS, () => client.destroy());
  client.on("error", () => client.destroy());
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (head.length > MAX_HEAD_BYTES)
        refuse(client, "431 Request Header Fields Too Large", "request head too large");
      return;
    }
    client.off("data", onData);
    client.pause();
    void forward(head, end + 4);
  };
  client.on("data", onData);

  async function forward(received: Buffer, headLength: number): Promise<void> {
    const parsed = parseTarget(received.subarray(0, headLength).toString("latin1"));
    if (typeof parsed === "string") {
      refuse(client, "400 Bad Request", parsed);
      return;
    }
    const shown = `${parsed.target.host}:${parsed.target.port}`;
    const decision = await decideEgress(options, parsed.target);
    if (!decision.ok) {
      options.onRefused?.(shown, decision.reason);
      refuse(client, "403 Forbidden", `${shown} refused: ${decision.reason}`);
      return;
    }
    let upstream: Socket;
    try {
      upstream = await connectFirst(decision.addresses, parsed.target.port);
    } catch {
      refuse(client, "502 Bad Gateway", `${shown} did not answer`);
      return;
    }
    client.setTimeout(0);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
    if (parsed.connect) {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(received.subarray(headLength));
    } else {
      // The request goes to the vetted address in origin form (as a proxy forwards it); later
      // requests on this connection can only reach the same address, never another host.
      upstream.write(originForm(received, headLength));
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }
}

/** A running proxy on a Unix socket. */
export interface EgressProxy {
  readonly socketPath: string;
  close(): Promise<void>;
}

/**
 * Starts the filtering HTTP / CONNECT proxy on a Unix socket (the sandbox reaches it through a
 * socat bridge; it has no other route out). Every connection is decided by {@link decideEgress}.
 */
export async function startEgressProxy(
  socketPath: string,
  options: EgressProxyOptions,
): Promise<EgressProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    handle(client, options);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.unref();
  return {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
