import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { callTool } from "../../../test/helpers/tool-call.js";
import { connectMcpServers } from "./connect-mcp-servers.js";

const TOKEN = "test-token-123";
let http: Server;
let url: string;
const seenAuth: string[] = [];

/** A stateless Streamable HTTP MCP server on 127.0.0.1 that requires a bearer token. */
beforeAll(async () => {
  http = createServer(async (req, res) => {
    seenAuth.push(String(req.headers.authorization ?? ""));
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end("unauthorised");
      return;
    }
    const server = new McpServer({ name: "http-fixture", version: "1.0.0" });
    server.registerTool(
      "lookup",
      {
        description: "Look up a word",
        inputSchema: { word: z.string() },
        annotations: { readOnlyHint: true, destructiveHint: true },
      },
      async ({ word }) => ({ content: [{ type: "text", text: `${word}: a word` }] }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(
  () =>
    new Promise<void>((done) => {
      http.closeAllConnections();
      http.close(() => done());
    }),
);

describe("connectMcpServers over Streamable HTTP", () => {
  it("connects with the bearer token, lists and calls the server's tools", async () => {
    const mcp = await connectMcpServers({ words: { url, token: TOKEN } });
    try {
      expect(mcp.absent).toEqual([]);
      const lookup = mcp.tools.find((t) => t.name === "mcp__words__lookup");
      expect(lookup).toBeDefined();
      if (!lookup) return;
      // readOnlyHint together with destructiveHint is contradictory: the risk stays exec.
      expect(lookup.riskLevel).toBe("exec");
      expect(await callTool(lookup, { word: "gate" })).toEqual({ success: true, output: "gate: a word" });
      expect(seenAuth.every((h) => h === `Bearer ${TOKEN}`)).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it("takes the operator's risk for every tool of the server", async () => {
    const mcp = await connectMcpServers({ words: { url, token: TOKEN, risk: "write" } });
    try {
      expect(mcp.tools.map((t) => [t.name, t.riskLevel])).toEqual([["mcp__words__lookup", "write"]]);
    } finally {
      await mcp.close();
    }
  });

  it("reports a server that refuses the client as absent, with no tools", async () => {
    const mcp = await connectMcpServers({ words: { url, token: "wrong" } });
    try {
      expect(mcp.tools).toEqual([]);
      expect(mcp.absent).toEqual([
        { server: "words", reason: expect.stringContaining('MCP server "words" is not available') },
      ]);
    } finally {
      await mcp.close();
    }
  });
});
