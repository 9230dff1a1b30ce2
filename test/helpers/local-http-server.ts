import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a {@link LocalHttpServer} received. */
export interface LocalHit {
  readonly method: string;
  /** Path with query. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Answers one request; `hit` is already recorded and carries the whole body. */
export type LocalRoute = (hit: LocalHit, res: ServerResponse) => void | Promise<void>;

/** A running server on 127.0.0.1. */
export interface LocalHttpServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Every request received, in order. */
  readonly hits: readonly LocalHit[];
  /** Hits of one path (query ignored). */
  hitsOf(path: string): readonly LocalHit[];
  /** Stops the server, dropping open connections (hanging responses included). */
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (port chosen by the OS) answering by route: keys are
 * `"<METHOD> <path>"` or just `"<path>"` (any method), path without query. Unknown routes get a 404
 * naming the route, so a test that forgot one fails loudly.
 */
export async function startLocalHttpServer(routes: Record<string, LocalRoute>): Promise<LocalHttpServer> {
  const hits: LocalHit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const hit: LocalHit = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      hits.push(hit);
      const path = hit.path.split("?")[0] ?? "";
      const route = routes[`${hit.method} ${path}`] ?? routes[path];
      if (!route) {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end(`local test server: no route ${hit.method} ${path}`);
        return;
      }
      Promise.resolve(route(hit, res)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end(`local test server: route threw ${String(err)}`);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hits,
    hitsOf: (path) => hits.filter((h) => h.path.split("?")[0] === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
