import { describe, expect, it } from "vitest";
import { callTool } from "../../../test/helpers/tool-call.js";
import type { RiskLevel } from "../../catalog/index.js";
import { type McpToolAnnotations, mcpToolRisk } from "./mcp-servers.js";
import { buildMcpTool, type McpCallResult, renderContent } from "./mcp-tool.js";

describe("mcpToolRisk", () => {
  it.each<[McpToolAnnotations | undefined, RiskLevel | undefined, RiskLevel]>([
    [undefined, undefined, "exec"],
    [{}, undefined, "exec"],
    [{ readOnlyHint: true }, undefined, "read_only"],
    [{ readOnlyHint: false }, undefined, "exec"],
    [{ readOnlyHint: true, destructiveHint: true }, undefined, "exec"],
    [{ idempotentHint: true }, undefined, "exec"],
    [{ readOnlyHint: true }, "dangerous", "dangerous"],
    [undefined, "write", "write"],
  ])("annotations %j with operator risk %s → %s", (annotations, operator, expected) => {
    expect(mcpToolRisk(annotations, operator)).toBe(expected);
  });
});

describe("renderContent", () => {
  it.each<[McpCallResult, string]>([
    [
      {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
      "a\nb",
    ],
    [{ content: [{ type: "image", mimeType: "image/png", data: "AAAA" }] }, "[image image/png, 3 bytes]"],
    [{ content: [{ type: "resource", resource: { uri: "file:///x", text: "body" } }] }, "body"],
    [{ content: [{ type: "resource_link", uri: "file:///y" }] }, "[resource link file:///y]"],
    [{ content: [], structuredContent: { n: 1 } }, '{"n":1}'],
  ])("renders %j as text", (result, text) => {
    expect(renderContent(result)).toBe(text);
  });
});

describe("buildMcpTool", () => {
  const listed = {
    name: "t",
    inputSchema: { type: "object" as const, properties: { n: { type: "integer" } } },
  };

  it("refuses a tool whose name cannot be an external tool name", () => {
    expect(() =>
      buildMcpTool(
        { ...listed, name: "has.dot" },
        { server: "s", call: async () => ({}), unavailable: () => undefined },
      ),
    ).toThrow(/not a valid MCP tool name/);
  });

  it("turns a transport failure into a business result naming the server", async () => {
    const tool = buildMcpTool(listed, {
      server: "s",
      unavailable: () => undefined,
      call: async () => {
        throw new Error("socket hang up");
      },
    });
    const result = await callTool(tool, { n: 1 });
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    if (!result.success) expect(result.error).toBe('MCP server "s" failed to run t: socket hang up');
  });

  it("passes the call's idempotency key and timeout to the server", async () => {
    const seen: unknown[] = [];
    const tool = buildMcpTool(listed, {
      server: "s",
      timeoutSeconds: 7,
      unavailable: () => undefined,
      call: async (name, args, options) => {
        seen.push({ name, args, options });
        return { content: [{ type: "text", text: "ok" }] };
      },
    });
    await callTool(tool, { n: 2 });
    expect(seen).toEqual([
      { name: "t", args: { n: 2 }, options: { idempotencyKey: expect.any(String), timeoutMs: 7000 } },
    ]);
  });
});
