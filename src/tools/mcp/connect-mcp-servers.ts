import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AnyTool } from "../../catalog/index.js";
import type { Logger } from "../../logging/index.js";
import { isStdioSpec, type McpServerSpec } from "./mcp-servers.js";
import { buildMcpTool, type ListedMcpTool, type McpCallResult } from "./mcp-tool.js";

/** Options of {@link connectMcpServers}. */
export interface ConnectMcpOptions {
  /** Where server stderr lines and connection problems go. */
  logger?: Pick<Logger, "warn" | "debug">;
  /** Deadline of connecting and listing one server, ms. Default 15,000. */
  connectTimeoutMs?: number;
  /** Per-call timeout of every external tool, seconds. Default 60. */
  callTimeoutSeconds?: number;
  /** Client name sent to servers. Default "echo-runner". */
  clientName?: string;
}

/** A server or one of its tools that is not available, and why (shown by `tools list`). */
export interface McpAbsence {
  readonly server: string;
  /** The tool's name on the server; undefined when the whole server is unavailable. */
  readonly tool?: string;
  readonly reason: string;
}

/** What {@link connectMcpServers} returns. */
export interface ConnectedMcpServers {
  /** The external tools of every server that connected, as `mcp__<server>__<tool>`. */
  readonly tools: readonly AnyTool[];
  /** Servers that did not connect and tools that could not be adopted. */
  readonly absent: readonly McpAbsence[];
  /** Closes every connection (stops stdio children). Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Connects to every configured MCP server (the official SDK, stdio or Streamable HTTP), lists its
 * tools and adopts each as an external tool. A server that fails to connect contributes no tools
 * and is reported in `absent` (fail closed: nothing of it is callable); a server that disconnects
 * later makes its tools not ready with the reason. Servers are connected in parallel.
 */
export async function connectMcpServers(
  servers: Readonly<Record<string, McpServerSpec>>,
  options: ConnectMcpOptions = {},
): Promise<ConnectedMcpServers> {
  const connected: Client[] = [];
  const outcomes = await Promise.all(
    Object.entries(servers).map(([name, spec]) => connectOne(name, spec, options, connected)),
  );
  let closed = false;
  return {
    tools: outcomes.flatMap((o) => o.tools),
    absent: outcomes.flatMap((o) => o.absent),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled(connected.map((client) => client.close()));
    },
  };
}

async function connectOne(
  server: string,
  spec: McpServerSpec,
  options: ConnectMcpOptions,
  connected: Client[],
): Promise<{ tools: AnyTool[]; absent: McpAbsence[] }> {
  const client = new Client({ name: options.clientName ?? "echo-runner", version: "0.1.0" });
  let down: string | undefined;
  client.onclose = () => {
    down ??= `MCP server "${server}" disconnected`;
  };
  client.onerror = (err) => options.logger?.warn({ server, err: err.message }, "MCP server error");
  const timeoutMs = options.connectTimeoutMs ?? 15_000;
  let listed: ListedMcpTool[];
  try {
    await client.connect(transportFor(server, spec, options), { timeout: timeoutMs });
    connected.push(client);
    listed = await listAll(client, timeoutMs);
  } catch (err) {
    await client.close().catch(() => undefined);
    const reason = `MCP server "${server}" is not available: ${(err as Error).message}`;
    options.logger?.warn({ server }, reason);
    return { tools: [], absent: [{ server, reason }] };
  }
  const tools: AnyTool[] = [];
  const absent: McpAbsence[] = [];
  for (const item of listed) {
    try {
      tools.push(
        buildMcpTool(item, {
          server,
          ...(spec.risk ? { operatorRisk: spec.risk } : {}),
          ...(options.callTimeoutSeconds ? { timeoutSeconds: options.callTimeoutSeconds } : {}),
          unavailable: () => down,
          call: async (tool, args, call) =>
            (await client.callTool(
              { name: tool, arguments: args, _meta: { "echo-runner/idempotency-key": call.idempotencyKey } },
              undefined,
              { timeout: call.timeoutMs },
            )) as McpCallResult,
        }),
      );
    } catch (err) {
      absent.push({ server, tool: item.name, reason: `not adopted: ${(err as Error).message}` });
    }
  }
  return { tools, absent };
}

function transportFor(server: string, spec: McpServerSpec, options: ConnectMcpOptions): Transport {
  if (isStdioSpec(spec)) {
    const transport = new StdioClientTransport({
      command: spec.command,
      args: [...(spec.args ?? [])],
      env: { ...getDefaultEnvironment(), ...(spec.env ?? {}) },
      stderr: "pipe",
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
    });
    transport.stderr?.on("data", (chunk: Buffer) =>
      options.logger?.debug({ server, stderr: chunk.toString("utf8").trimEnd() }, "MCP server stderr"),
    );
    return transport;
  }
  return new StreamableHTTPClientTransport(new URL(spec.url), {
    ...(spec.token ? { requestInit: { headers: { authorization: `Bearer ${spec.token}` } } } : {}),
  });
}

async function listAll(client: Client, timeoutMs: number): Promise<ListedMcpTool[]> {
  const out: ListedMcpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
    out.push(...(result.tools as ListedMcpTool[]));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return out;
}
