import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "../../logging/index.js";
import { errorPage } from "./approval-pages.js";

/** One size limit for every request body the server reads (forms and the API's JSON), bytes. */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * Headers of every reply, whichever route (or none) answered: nothing cached or forwarded, never
 * framed, no content sniffing. Pages add their stricter CSP on top.
 */
export const BASE_SECURITY_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
} as const;

/** Sets the {@link BASE_SECURITY_HEADERS} a reply does not carry yet (a page's own CSP stays). */
export function applyBaseHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(BASE_SECURITY_HEADERS)) {
    if (!reply.hasHeader(name)) reply.header(name, value);
  }
}

/** A client error Fastify raised before a route ran keeps its 4xx status; anything else is 500. */
function statusOf(error: { statusCode?: number } | undefined): number {
  const s = error?.statusCode;
  return s !== undefined && s >= 400 && s < 500 ? s : 500;
}

/** What we say for a status: our words, never the framework's message or code, never the URL. */
const JSON_ERRORS: Readonly<Record<number, readonly [string, string]>> = {
  400: ["BAD_REQUEST", "the request could not be read"],
  404: ["NOT_FOUND", "there is nothing at this address"],
  405: ["METHOD_NOT_ALLOWED", "this method is not accepted here"],
  413: ["BODY_TOO_LARGE", `the body is larger than ${MAX_BODY_BYTES} bytes`],
  414: ["URI_TOO_LONG", "the address is too long"],
  415: ["UNSUPPORTED_MEDIA_TYPE", "send application/json"],
  429: ["TOO_MANY_REQUESTS", "too many requests; try again later"],
  500: ["INTERNAL", "the request could not be handled; nothing was changed"],
};

/** Our JSON error body for a status. */
export function jsonError(status: number): { error: string; message: string } {
  const [error, message] = JSON_ERRORS[status] ?? JSON_ERRORS[400]!;
  return { error, message };
}

/**
 * Error handler of the JSON scopes (the API, `/metrics`): a client error keeps its status with our
 * code and message; anything else is logged and answered 500. No framework code, no request URL.
 */
export function jsonErrorHandler(logger: Logger) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    const status = statusOf(error);
    if (status === 500) logger.error({ err: error }, "api request failed");
    applyBaseHeaders(reply);
    return reply.code(status).send(jsonError(status));
  };
}

/** True for paths whose callers read JSON (the API and metrics), false for pages people read. */
export function wantsJson(url: string): boolean {
  const path = url.split("?")[0] ?? "";
  return /^\/(api|metrics|slack)(\/|$)/.test(path) || path === "/healthz";
}

/** Page text of a status on the people-facing paths. */
const PAGE_ERRORS: Readonly<Record<number, readonly [string, string]>> = {
  400: [
    "Bad request",
    "This address could not be read. Open the link from your most recent approval message.",
  ],
  404: [
    "Not found",
    "There is nothing at this address. Open the link from your most recent approval message.",
  ],
  414: ["Bad request", "This address is too long. Open the link from your most recent approval message."],
};

/**
 * The reply of the whole server for what no route answers (unmatched paths, a trailing slash, bad
 * percent-encoding, over-long parameters): our plain page or JSON with our headers. It never repeats
 * the URL, which may hold a link token.
 */
export function sendUnrouted(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  basePath: string,
): FastifyReply {
  applyBaseHeaders(reply);
  if (wantsJson(request.url))
    return reply.code(status).type("application/json; charset=utf-8").send(jsonError(status));
  const [title, message] = PAGE_ERRORS[status] ?? PAGE_ERRORS[400]!;
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .send(errorPage(title, message, basePath));
}

/**
 * The reply to a request Node could not even parse (headers too large, a broken request line, a
 * client timeout), written straight to the socket as Fastify's default would, but with our code and
 * message and our headers; nothing of the request is echoed.
 */
export function clientErrorReply(error: { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const status =
    error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const body = JSON.stringify(
    status === 431
      ? { error: "HEADERS_TOO_LARGE", message: "the request headers are too large" }
      : status === 408
        ? { error: "TIMEOUT", message: "the request took too long to arrive" }
        : jsonError(400),
  );
  const headers = Object.entries(BASE_SECURITY_HEADERS)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers}content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The server's last-resort error handler (routes outside any scope's own handler). */
export function rootErrorHandler(logger: Logger, basePath: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const status = statusOf(error);
    if (status === 500) logger.error({ err: error }, "request failed");
    return sendUnrouted(request, reply, status, basePath);
  };
}
