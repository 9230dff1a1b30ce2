import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";
import {
  type AnyTool,
  defineMcpTool,
  type RiskLevel,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from "../../catalog/index.js";
import { type McpToolAnnotations, mcpToolRisk } from "./mcp-servers.js";

/** A tool as an MCP server lists it (the fields the runner reads). */
export interface ListedMcpTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: { readonly type: "object"; readonly [key: string]: unknown };
  readonly annotations?: McpToolAnnotations;
}

/** One content block of an MCP tool result (the fields the runner renders). */
export interface McpContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly mimeType?: string;
  readonly data?: string;
  readonly uri?: string;
  readonly resource?: { readonly uri?: string; readonly text?: string; readonly mimeType?: string };
}

/** An MCP tool result (CallToolResult) as the runner reads it. */
export interface McpCallResult {
  readonly content?: readonly McpContentBlock[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/** Calls a tool on the server; rejects on protocol or transport errors. */
export type McpCall = (
  tool: string,
  args: Record<string, unknown>,
  options: { idempotencyKey: string; timeoutMs: number },
) => Promise<McpCallResult>;

/** What {@link buildMcpTool} needs besides the listing. */
export interface McpToolSource {
  readonly server: string;
  readonly call: McpCall;
  /** Why the server cannot be used right now, or undefined while it is connected. */
  readonly unavailable: () => string | undefined;
  readonly operatorRisk?: RiskLevel;
  /** Per-call timeout, seconds. Default 60. */
  readonly timeoutSeconds?: number;
}

/**
 * An external tool from an MCP listing: named `mcp__<server>__<tool>`, capability mcp.call, risk
 * from the annotations (see mcpToolRisk), its input schema used as is for validation. Throws when
 * the name cannot be an external tool name or the schema cannot be compiled; the caller records
 * the tool as absent with that reason.
 */
export function buildMcpTool(listed: ListedMcpTool, source: McpToolSource): AnyTool {
  const parameters = listed.inputSchema as unknown as TSchema;
  // Compile once up front: a schema that cannot be compiled would otherwise fail at call time.
  Compile(parameters);
  const timeoutSeconds = source.timeoutSeconds ?? 60;
  const risk: RiskLevel = mcpToolRisk(listed.annotations, source.operatorRisk);
  const description =
    listed.description?.trim() || listed.title?.trim() || `${listed.name} on ${source.server}`;
  return defineMcpTool({
    server: source.server,
    tool: listed.name,
    description: `[MCP ${source.server}] ${description}`,
    parameters,
    declaredRisk: risk,
    timeoutSeconds,
    keywords: [source.server, listed.name],
    isDestructive: () =>
      listed.annotations?.destructiveHint === true || (risk !== "read_only" && risk !== "write"),
    readinessDetail: () => {
      const why = source.unavailable();
      return why === undefined
        ? { ready: true, detail: `connected to MCP server "${source.server}"` }
        : { ready: false, detail: why };
    },
    async execute(args, ctx): Promise<ToolResult> {
      let result: McpCallResult;
      try {
        result = await source.call(listed.name, args as Record<string, unknown>, {
          idempotencyKey: ctx.idempotencyKey,
          timeoutMs: timeoutSeconds * 1000,
        });
      } catch (err) {
        return toolFailure(
          "business",
          `MCP server "${source.server}" failed to run ${listed.name}: ${(err as Error).message}`,
        );
      }
      const text = renderContent(result);
      if (result.isError) {
        return {
          ...toolFailure("business", `MCP tool ${listed.name} reported an error: ${text.slice(0, 400)}`),
          output: text,
        };
      }
      return toolSuccess(
        text,
        result.structuredContent === undefined ? undefined : { structured: result.structuredContent },
      );
    },
  });
}

/** Text for the model from a tool result's content blocks (binary blocks are described, not inlined). */
export function renderContent(result: McpCallResult): string {
  const parts = (result.content ?? []).map((block) => {
    switch (block.type) {
      case "text":
        return block.text ?? "";
      case "image":
      case "audio":
        return `[${block.type} ${block.mimeType ?? "unknown type"}, ${Math.floor(((block.data ?? "").length * 3) / 4)} bytes]`;
      case "resource":
        return block.resource?.text ?? `[resource ${block.resource?.uri ?? ""}]`;
      case "resource_link":
        return `[resource link ${block.uri ?? ""}]`;
      default:
        return `[${block.type} content]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}
