import net from "node:net";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { ApprovalStore } from "../../approvals/index.js";
import { createLogger } from "../../logging/index.js";
import { createMetricsCollector } from "../../metrics/index.js";
import { systemClock } from "../../shared/index.js";
import { OperatorCredentials } from "../auth/index.js";
import { createHttpServer } from "../server.js";

/** Every error reply is ours over a real socket: raw paths reach the router as sent. */

const TOKEN = "error-replies-operator-token-0123456789ab";
let redis: Redis;
let app: ReturnType<typeof createHttpServer>;
let base: string;
let store: ApprovalStore;
let id: string;
let link: string;
const prefix = uniquePrefix("errrep");

beforeAll(async () => {
  redis = testRedisClient();
  store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "ann", email: null }] },
  });
  app = createHttpServer({
    redis,
    logger: createLogger({ level: "silent", format: "json" }),
    operators: new OperatorCredentials([{ id: "ann", token: TOKEN }]),
    approvals: { store, publicUrl: "http://127.0.0.1:8787" },
    metrics: {
      collector: createMetricsCollector({
        redis,
        keyPrefix: prefix,
        approvals: store,
        queues: [],
        clock: systemClock,
      }),
    },
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const { record } = await store.register({
    runId: "run-1",
    jobId: "job-1",
    traceId: "t",
    idempotencyKey: "k-1",
    tool: "exec",
    args: { command: "make" },
    risk: "exec",
    reason: "r",
    agent: "a",
    channel: "cron",
  });
  id = record.id;
  link = (await store.issueToken(id, "ann"))!;
});
afterAll(async () => {
  await app.close();
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

function expectOurHeaders(res: Response) {
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
}

function expectNothingOfTheirs(body: string) {
  expect(body).not.toMatch(/FST_|statusCode|"code"|Route .* not found|is not a valid url component/);
  expect(body).not.toContain(link);
  expect(body).not.toContain("?t=");
}

describe("error replies", () => {
  it.each([
    ["a trailing slash after a link", () => `/approvals/${id}/?t=${link}`, 404],
    ["a doubled slash", () => `//approvals/${id}?t=${link}`, 404],
    ["an unmatched path holding the token", () => `/approval/${id}?t=${link}`, 404],
    ["bad percent-encoding in the path", () => `/approvals/%E0%A4%A?t=${link}`, 400],
    ["a lone percent sign", () => `/approvals/${id}%?t=${link}`, 400],
    ["an encoded NUL", () => `/approvals/%00${id}?t=${link}`, 404],
    ["the decision path with a trailing slash", () => `/approvals/${id}/decision/?t=${link}`, 404],
  ])("answers %s with our page, our headers, and without the token", async (_name, path, status) => {
    const res = await fetch(`${base}${path()}`);
    const body = await res.text();
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toContain("text/html");
    expectOurHeaders(res);
    expectNothingOfTheirs(body);
    expect(body).toContain("Open the link from your most recent approval message");
  });

  it.each([
    ["an unmatched API path", "GET", "/api/approvals/x/y/z", undefined, undefined, 404],
    ["an API path with a trailing slash", "GET", "/api/approvals/", undefined, undefined, 404],
    ["bad encoding under /api", "GET", "/api/approvals/%zz", undefined, undefined, 400],
    ["JSON that does not parse", "POST", "/api/approvals/ID/decision", "application/json", "{nope", 400],
    ["a body of another type", "POST", "/api/approvals/ID/decision", "text/plain", "approve", 415],
    ["a body over the one size limit", "POST", "/api/approvals/ID/decision", "application/json", "BIG", 413],
  ])("answers %s with our JSON and headers", async (_name, method, path, type, body, status) => {
    const payload =
      body === "BIG" ? JSON.stringify({ decision: "approve", comment: "x".repeat(20_000) }) : body;
    const res = await fetch(`${base}${path.replace("ID", id)}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(type ? { "content-type": type } : {}) },
      ...(payload !== undefined ? { body: payload } : {}),
    });
    const text = await res.text();
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toContain("application/json");
    expectOurHeaders(res);
    expectNothingOfTheirs(text);
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(["error", "message"]);
    expect((await store.get(id))?.status).toBe("pending");
  });

  it("keeps the pages' strict CSP on top of the shared headers", async () => {
    const res = await fetch(`${base}/approvals/${id}?t=${link}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'; style-src 'self'");
    expectOurHeaders(res);
  });

  it("answers /healthz with the shared headers", async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expectOurHeaders(res);
  });

  /** Sends raw bytes and reads the whole answer (for what fetch would refuse to send). */
  function raw(request: string): Promise<string> {
    const { port } = app.server.address() as { port: number };
    return new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => socket.write(request));
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk;
      });
      socket.on("close", () => resolve(answer));
      socket.on("error", () => resolve(answer));
    });
  }

  it.each([
    [
      "headers over Node's limit",
      () => `GET /approvals/${id}?t=${link} HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      431,
    ],
    ["a broken request line", () => `GET /approvals/${id}?t=${link} HTTX/9\r\n\r\n`, 400],
    [
      "an absolute-form URL with a trailing slash",
      () =>
        `GET http://evil.example/approvals/${id}/?t=${link} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      404,
    ],
    [
      "OPTIONS on a link",
      () => `OPTIONS /approvals/${id}?t=${link} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      404,
    ],
    [
      "a path parameter over the router's limit",
      () => `GET /approvals/${"a".repeat(600)}?t=${link} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      414,
    ],
    [
      "API JSON smuggling __proto__",
      () => {
        const body = '{"decision":"approve","__proto__":{"by":"ann"}}';
        return `POST /api/approvals/${id}/decision HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
      },
      400,
    ],
    [
      "a chunked form over the size limit",
      () =>
        `POST /approvals/${id}/decision HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5000\r\n${"a".repeat(0x5000)}\r\n0\r\n\r\n`,
      413,
    ],
  ])("answers %s with our headers and no framework code or token", async (_name, request, status) => {
    const answer = await raw(request());
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head.toLowerCase()).toContain("cache-control: no-store");
    expect(head.toLowerCase()).toContain("referrer-policy: no-referrer");
    expect(head.toLowerCase()).toContain("x-frame-options: deny");
    expectNothingOfTheirs(body);
    expect((await store.get(id))?.status).toBe("pending");
  });
});
