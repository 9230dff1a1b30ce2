import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** What a model server answered: status, headers and the whole body as text. */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  header(name: string): string | null;
}

/** A POST client for one model endpoint, keeping its connections open between requests. */
export interface HttpPoster {
  post(body: string, signal: AbortSignal): Promise<HttpAnswer>;
}

/**
 * POSTs to `endpoint` over node:http(s) with a keep-alive pool. Not `fetch`: with a thousand runs
 * waiting on a model, fetch's web streams, its transferables and its per-request objects cost 2-3×
 * the CPU of node:http per request (measured in this repository: 446-827 against 208-238 µs per
 * request at 1,000 in flight), and a worker's steps are CPU-bound (docs/BENCHMARKS.md). The abort signal
 * covers the whole exchange: connecting, waiting and reading the body.
 */
export function createHttpPoster(endpoint: URL, headers: Readonly<Record<string, string>>): HttpPoster {
  const https = endpoint.protocol === "https:";
  // Every idle connection is kept (Node's default keeps 256 and closes the rest): with more runs in
  // flight than that, each answer that found the idle pool full closed its connection, and the run's
  // next request opened a new one — a TCP connect and close per step on both sides (about 10 % of a
  // worker's CPU at 1,000 in flight, docs/BENCHMARKS.md). The pool never holds more connections than were once
  // in use at the same time; the server closes the ones it no longer wants (its keep-alive timeout).
  const pool = {
    keepAlive: true,
    maxSockets: Number.POSITIVE_INFINITY,
    maxFreeSockets: Number.POSITIVE_INFINITY,
  };
  const agent = https ? new HttpsAgent(pool) : new HttpAgent(pool);
  const send = https ? httpsRequest : httpRequest;
  return {
    post(body, signal) {
      return new Promise<HttpAnswer>((resolve, reject) => {
        const req = send(endpoint, {
          method: "POST",
          agent,
          signal,
          headers: { ...headers, "content-length": Buffer.byteLength(body) },
        });
        req.on("error", reject);
        req.on("response", (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          // A connection cut mid-body ends in "aborted"/"close" without "end": a failure, not a short body.
          res.on("close", () => {
            if (!res.complete)
              reject(Object.assign(new Error("the connection closed mid-response"), { code: "ECONNRESET" }));
          });
          res.on("end", () => {
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString("utf8"),
              header: (name) => {
                const value = res.headers[name.toLowerCase()];
                return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
              },
            });
          });
        });
        req.end(body);
      });
    },
  };
}
