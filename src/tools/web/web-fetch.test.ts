import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalHttpServer, startLocalHttpServer } from "../../../test/helpers/local-http-server.js";
import { callTool } from "../../../test/helpers/tool-call.js";
import { checkUrl } from "../../guard/index.js";
import { isHostAllowed } from "../../policy/index.js";
import { createWebFetchTool } from "./web-fetch.js";
import type { UrlChecker, WebFetchOptions } from "./web-ports.js";

/**
 * The test's loopback server is reachable only as this explicitly allowed target: the checker says
 * "allow, connect to 127.0.0.1" for it and hands every other URL to the real SSRF check, whose
 * resolver resolves nothing (no DNS, only loopback traffic in tests).
 */
const FIXTURE_HOST = "fixture.test";

const checker: UrlChecker = async (url) => {
  if (URL.canParse(url) && new URL(url).hostname === FIXTURE_HOST) {
    return { verdict: "allow", reason: "test target", host: FIXTURE_HOST, connectTo: ["127.0.0.1"] };
  }
  return checkUrl(url, { resolve: async () => [] });
};

let server: LocalHttpServer;
let fixture: string;
let loopback: string;

function tool(overrides: Partial<WebFetchOptions> = {}) {
  return createWebFetchTool({
    checkUrl: checker,
    lookup: async () => ["127.0.0.1"],
    hostPolicy: () => undefined,
    ...overrides,
  });
}

beforeAll(async () => {
  server = await startLocalHttpServer({
    "/page": (_hit, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        '<html><head><title>T</title><style>p{color:red}</style><script>alert(1)</script></head><body><h1>Quarterly report</h1><p>Revenue <a href="https://example.com/r">grew</a> 12%.</p><img src="x.png" alt="chart"></body></html>',
      );
    },
    "/json": (_hit, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    },
    "/gzip": (_hit, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(gzipSync(Buffer.from("compressed hello")));
    },
    "/big": (_hit, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const line = `${"x".repeat(1023)}\n`;
      for (let i = 0; i < 3 * 1024; i++) res.write(line);
      res.end();
    },
    "/bomb": (_hit, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x61)));
    },
    "/slow": () => {
      // Never answers: the client's deadline must end the call.
    },
    "/hop": (_hit, res) => {
      res.writeHead(302, { location: "/page" });
      res.end();
    },
    "/to-loopback": (_hit, res) => {
      res.writeHead(302, { location: `${loopback}/secret` });
      res.end();
    },
    "/to-elsewhere": (_hit, res) => {
      res.writeHead(301, { location: "https://not-allowed.example.org/x" });
      res.end();
    },
    "/loop": (_hit, res) => {
      res.writeHead(302, { location: "/loop" });
      res.end();
    },
    "/secret": (_hit, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("internal secret");
    },
    "/image": (_hit, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    },
    "/missing": (_hit, res) => {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no such page");
    },
  });
  fixture = `http://${FIXTURE_HOST}:${server.port}`;
  loopback = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.close());

describe("web_fetch", () => {
  it("returns an HTML page as readable text, without scripts, styles or images", async () => {
    const result = await callTool(tool(), { url: `${fixture}/page` });
    expect(result.success).toBe(true);
    expect(result.output).toContain("Quarterly report");
    expect(result.output).toContain("Revenue grew [https://example.com/r] 12%.");
    expect(result.output).not.toMatch(/alert|color:red|x\.png/);
    expect(result.output).toContain("Status: 200");
  });

  it("connects to the checked address and keeps the URL's host name in the Host header", async () => {
    const before = server.hitsOf("/json").length;
    const result = await callTool(tool(), { url: `${fixture}/json` });
    expect(result.success).toBe(true);
    expect(result.output).toContain('{"ok":true}');
    const hit = server.hitsOf("/json")[before];
    expect(hit?.headers.host).toBe(`${FIXTURE_HOST}:${server.port}`);
  });

  it("decompresses a gzip body", async () => {
    const result = await callTool(tool(), { url: `${fixture}/gzip` });
    expect(result.output).toContain("compressed hello");
  });

  it("follows a redirect to an allowed target", async () => {
    const result = await callTool(tool(), { url: `${fixture}/hop` });
    expect(result.success).toBe(true);
    expect(result.output).toContain(`URL: ${fixture}/page`);
    expect(result.data).toMatchObject({ redirects: 1, finalUrl: `${fixture}/page` });
  });

  it("refuses a redirect to 127.0.0.1 and never contacts it", async () => {
    const result = await callTool(tool(), { url: `${fixture}/to-loopback` });
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    if (result.success) return;
    expect(result.error).toContain("127.0.0.1 is an internal address");
    expect(result.error).toContain("a redirect to an internal address is never followed");
    expect(server.hitsOf("/secret")).toHaveLength(0);
  });

  it("refuses a redirect to 127.0.0.1 even when a person approved the first URL", async () => {
    const result = await callTool(tool(), { url: `${fixture}/to-loopback` }, { approvalSource: "human" });
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    expect(server.hitsOf("/secret")).toHaveLength(0);
  });

  it("refuses an internal first URL that no person approved", async () => {
    const result = await callTool(tool(), { url: `${loopback}/secret` });
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    if (!result.success) expect(result.error).toContain("needs a person's approval");
    expect(server.hitsOf("/secret")).toHaveLength(0);
  });

  it("fetches an internal first URL that a person approved", async () => {
    const result = await callTool(tool(), { url: `${loopback}/secret` }, { approvalSource: "human" });
    expect(result.success).toBe(true);
    expect(result.output).toContain("internal secret");
  });

  it.each([
    ["file:///etc/passwd", "the scheme file: cannot be fetched"],
    ["not a url", "is not a valid URL"],
  ])("denies %s", async (url, message) => {
    const result = await callTool(tool(), { url });
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    if (!result.success) expect(result.error).toContain(message);
  });

  it("applies network_policy restricted to the first URL and to every redirect", async () => {
    const restricted = tool({
      hostPolicy: (host) =>
        isHostAllowed(host, [FIXTURE_HOST]) ? undefined : `${host} is not in execution.allowed_hosts`,
    });
    expect((await callTool(restricted, { url: `${fixture}/page` })).success).toBe(true);
    const redirected = await callTool(restricted, { url: `${fixture}/to-elsewhere` });
    expect(redirected).toMatchObject({ success: false, errorKind: "denied" });
    if (!redirected.success) {
      expect(redirected.error).toContain("not-allowed.example.org is not in execution.allowed_hosts");
    }
    const none = tool({ hostPolicy: (host) => `${host} is not in execution.allowed_hosts` });
    expect(await callTool(none, { url: `${fixture}/page` })).toMatchObject({ errorKind: "denied" });
  });

  it("cuts an oversize body at the byte cap and says so", async () => {
    const capped = tool({ limits: { maxBytes: 64 * 1024 } });
    const result = await callTool(capped, { url: `${fixture}/big`, max_chars: 200_000 });
    expect(result.success).toBe(true);
    expect(result.data).toMatchObject({ bytes: 64 * 1024, truncatedBytes: true });
    expect(result.output).toContain(`[body cut at ${64 * 1024} bytes]`);
  });

  it("cuts a compression bomb at the byte cap of decompressed bytes", async () => {
    const capped = tool({ limits: { maxBytes: 100_000 } });
    const result = await callTool(capped, { url: `${fixture}/bomb` });
    expect(result.data).toMatchObject({ bytes: 100_000, truncatedBytes: true });
  });

  it("cuts the text at max_chars", async () => {
    const result = await callTool(tool(), { url: `${fixture}/big`, max_chars: 500 });
    expect(result.data).toMatchObject({ truncatedText: true });
    expect(result.output).toContain("[text cut at 500 characters");
  });

  it("times out on a server that does not answer", async () => {
    const quick = tool({ limits: { timeoutMs: 300 } });
    const started = Date.now();
    const result = await callTool(quick, { url: `${fixture}/slow` });
    expect(result).toMatchObject({ success: false, errorKind: "timeout" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("stops after the redirect limit", async () => {
    const result = await callTool(tool({ limits: { maxRedirects: 3 } }), { url: `${fixture}/loop` });
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    if (!result.success) expect(result.error).toContain("more than 3 redirects");
  });

  it("refuses to render binary content and reports HTTP errors with the body", async () => {
    const image = await callTool(tool(), { url: `${fixture}/image` });
    expect(image).toMatchObject({ success: false, errorKind: "business" });
    if (!image.success) expect(image.error).toContain("image/png");
    const missing = await callTool(tool(), { url: `${fixture}/missing` });
    expect(missing).toMatchObject({
      success: false,
      errorKind: "business",
      output: expect.stringContaining("no such page"),
    });
  });

  it.each([
    [{}, "url: is required"],
    [{ url: "" }, "url:"],
    [{ url: "https://example.com", format: "pdf" }, 'format: must be one of "text", "raw"'],
    [{ url: "https://example.com", max_chars: 5 }, "max_chars:"],
    [{ url: "https://example.com", extra: 1 }, "extra: is not allowed"],
  ])("rejects bad arguments %j naming the field", async (args, message) => {
    const result = await callTool(tool(), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });

  it("is read-only, needs the network and declares the catalog's metadata", () => {
    const t = tool();
    expect(t.riskLevel).toBe("read_only");
    expect(t.isReadOnly({ url: "https://example.com" })).toBe(true);
    expect(t.isEnabled({ networkAvailable: false })).toBe(false);
    expect(t.isEnabled({ networkAvailable: true })).toBe(true);
  });
});
