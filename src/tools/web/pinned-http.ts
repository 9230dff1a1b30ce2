import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** One GET to an already checked address. */
export interface PinnedGetOptions {
  readonly url: URL;
  /** The checked addresses; the host name is never resolved again. Must not be empty. */
  readonly addresses: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  /** Most body bytes kept after decompression; reading stops there. */
  readonly maxBytes: number;
  /** Aborts the request (the caller's deadline). */
  readonly signal: AbortSignal;
}

/** The answer of {@link pinnedGet}. A redirect's body is not read. */
export interface PinnedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** True when the body was longer than `maxBytes` and was cut. */
  readonly truncated: boolean;
}

/** Thrown when the signal aborts the request (the caller maps it to a `timeout` result). */
export class FetchAbortedError extends Error {
  constructor() {
    super("the request was aborted");
    this.name = new.target.name;
  }
}

/**
 * A lookup that answers every name with the checked addresses: TLS still verifies the certificate
 * against the URL's host (SNI and the Host header keep it), but the socket goes only where the SSRF
 * check looked.
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const first = entries[0];
    if (!first) {
      callback(Object.assign(new Error("no checked address to connect to"), { code: "ENOTFOUND" }));
      return;
    }
    if (options?.all) callback(null, entries);
    else callback(null, first.address, first.family);
  }) as LookupFunction;
}

/**
 * GET with the connection pinned to checked addresses, a byte cap and an abort signal. No
 * connection pooling (`agent: false`), so a socket opened for one checked address is never reused
 * for another request. Decompresses gzip, deflate and br; the cap counts decompressed bytes, so a
 * compression bomb is cut like any long body.
 */
export function pinnedGet(options: PinnedGetOptions): Promise<PinnedResponse> {
  const { url, signal } = options;
  const transport = url.protocol === "https:" ? https : http;
  return new Promise<PinnedResponse>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const request = transport.request(
      url,
      {
        method: "GET",
        headers: { ...options.headers },
        agent: false,
        lookup: pinnedLookup(options.addresses),
      },
      (response) => readResponse(response, options.maxBytes, settle, resolve, reject),
    );
    const onAbort = () => {
      request.destroy();
      settle(() => reject(new FetchAbortedError()));
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", (err) => settle(() => reject(err)));
    request.end();
  });
}

function readResponse(
  response: IncomingMessage,
  maxBytes: number,
  settle: (fn: () => void) => void,
  resolve: (value: PinnedResponse) => void,
  reject: (err: unknown) => void,
): void {
  const status = response.statusCode ?? 0;
  const headers = response.headers;
  if (status >= 300 && status < 400 && headers.location) {
    response.destroy();
    settle(() => resolve({ status, headers, body: Buffer.alloc(0), truncated: false }));
    return;
  }
  let stream: Readable;
  try {
    stream = decoded(response);
  } catch (err) {
    response.destroy();
    settle(() => reject(err));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const finish = (truncated: boolean) => {
    done = true;
    response.destroy();
    settle(() => resolve({ status, headers, body: Buffer.concat(chunks, size), truncated }));
  };
  stream.on("data", (chunk: Buffer) => {
    if (done) return;
    const room = maxBytes - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size += room;
      finish(true);
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
  });
  stream.on("end", () => finish(false));
  stream.on("error", (err) => settle(() => reject(err)));
  response.on("error", (err) => settle(() => reject(err)));
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "identity")
    .trim()
    .toLowerCase();
  switch (encoding) {
    case "":
    case "identity":
      return response;
    case "gzip":
    case "x-gzip":
      return response.pipe(createGunzip());
    case "deflate":
      return response.pipe(createInflate());
    case "br":
      return response.pipe(createBrotliDecompress());
    default:
      throw new Error(`the server sent content-encoding ${JSON.stringify(encoding)}, which is not supported`);
  }
}
