import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalHttpServer, startLocalHttpServer } from "../../../test/helpers/local-http-server.js";
import { callTool } from "../../../test/helpers/tool-call.js";
import { isHostAllowed } from "../../policy/index.js";
import { createWebSearchTool, type WebSearchSettings } from "./web-search.js";

let server: LocalHttpServer;

beforeAll(async () => {
  server = await startLocalHttpServer({
    "GET /res/v1/web/search": (hit, res) => {
      if (hit.headers["x-subscription-token"] !== "brave-key") {
        res.writeHead(401, { "content-type": "application/json" });
        res.end('{"error":"bad token"}');
        return;
      }
      const q = new URL(hit.path, "http://x").searchParams.get("q");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          web: {
            results: [
              {
                title: "BullMQ docs",
                url: "https://docs.bullmq.io",
                description: `About <strong>${q}</strong>`,
              },
              { title: "Second", url: "https://example.com/2" },
            ],
          },
        }),
      );
    },
    "POST /search": (hit, res) => {
      const body = JSON.parse(hit.body.toString("utf8")) as { query: string; max_results: number };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          results: [
            { title: `T ${body.query}`, url: "https://t.example", content: `max ${body.max_results}` },
          ],
        }),
      );
    },
    "/slow": () => {},
  });
});

afterAll(() => server.close());

function tool(settings: Partial<WebSearchSettings> | undefined, allowedHosts?: string[]) {
  return createWebSearchTool({
    settings: settings && {
      provider: "brave",
      apiKey: "brave-key",
      apiKeyEnv: "BRAVE_API_KEY",
      baseUrl: server.origin,
      ...settings,
    },
    fetch: globalThis.fetch,
    hostPolicy: (host) =>
      allowedHosts === undefined || isHostAllowed(host, allowedHosts)
        ? undefined
        : `${host} is not in execution.allowed_hosts`,
  });
}

describe("web_search", () => {
  it("returns titles, URLs and snippets from Brave Search, without the markup", async () => {
    const result = await callTool(tool({}), { query: "durable jobs", count: 2 });
    expect(result.success).toBe(true);
    expect(result.output).toBe(
      "1. BullMQ docs\n   https://docs.bullmq.io\n   About durable jobs\n2. Second\n   https://example.com/2",
    );
    const hit = server.hitsOf("/res/v1/web/search").at(-1);
    expect(hit?.path).toBe("/res/v1/web/search?q=durable+jobs&count=2");
  });

  it("searches through Tavily with the key as a bearer token", async () => {
    const result = await callTool(tool({ provider: "tavily", apiKey: "tv-key" }), { query: "redis aof" });
    expect(result.output).toContain("T redis aof");
    expect(result.output).toContain("max 5");
    expect(server.hitsOf("/search").at(-1)?.headers.authorization).toBe("Bearer tv-key");
  });

  it.each([
    [undefined, "no search provider is configured (tools.web.search.provider is none)"],
    [
      { apiKey: undefined },
      "BRAVE_API_KEY is not set (API key of the brave search provider, tools.web.search.api_key_env)",
    ],
  ])("is not ready with %j and says why", async (settings, detail) => {
    const t = tool(settings);
    expect(t.readinessDetail()).toEqual({ ready: false, detail });
    expect(await callTool(t, { query: "x" })).toMatchObject({ success: false, errorKind: "not_ready" });
  });

  it("reports a rejected key without echoing it", async () => {
    const result = await callTool(tool({ apiKey: "wrong-key" }), { query: "x" });
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    if (result.success) return;
    expect(result.error).toContain("HTTP 401 (the provider rejected the API key)");
    expect(result.error).not.toContain("wrong-key");
  });

  it("is refused by network_policy restricted when the provider's host is not allowed", async () => {
    const result = await callTool(tool({}, ["api.search.brave.com"]), { query: "x" });
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    if (!result.success) expect(result.error).toContain("127.0.0.1 is not in execution.allowed_hosts");
  });

  it("times out on a provider that does not answer", async () => {
    // The fetch sends the search to a route of the local server that never answers.
    const t = createWebSearchTool({
      settings: { provider: "brave", apiKey: "k", apiKeyEnv: "K", baseUrl: server.origin, timeoutMs: 200 },
      fetch: (input, init) => globalThis.fetch(new URL("/slow", String(input)), init),
      hostPolicy: () => undefined,
    });
    expect(await callTool(t, { query: "x" })).toMatchObject({ success: false, errorKind: "timeout" });
  });

  it.each([
    [{}, "query: is required"],
    [{ query: "" }, "query:"],
    [{ query: "x", count: 50 }, "count:"],
  ])("rejects bad arguments %j naming the field", async (args, message) => {
    const result = await callTool(tool({}), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });
});
