import type { RiskLevel } from "../../catalog/index.js";

/**
 * One external MCP server as `connectMcpServers` takes it: `tools.mcp.servers.<name>` with its
 * secrets already resolved by the caller (`env_from` → `env`, `token_env` → `token`).
 */
export type McpServerSpec = McpStdioServerSpec | McpHttpServerSpec;

/** A server started as a child process speaking MCP over stdin/stdout. */
export interface McpStdioServerSpec {
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Variables for the child on top of the SDK's minimal default environment (HOME, PATH, USER, ...);
   * the runner's own environment, and so its secrets, is never inherited.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the child. Default: the runner's. */
  readonly cwd?: string;
  /** The operator's risk for every tool of this server; replaces what the annotations say. */
  readonly risk?: RiskLevel;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServerSpec {
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** The operator's risk for every tool of this server; replaces what the annotations say. */
  readonly risk?: RiskLevel;
}

/** True for a stdio server spec. */
export function isStdioSpec(spec: McpServerSpec): spec is McpStdioServerSpec {
  return "command" in spec;
}

/** MCP tool annotations as a server sends them (all hints, none guaranteed). */
export interface McpToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * The risk of an external tool: the operator's declaration when there is one, else read_only only
 * when the server says read-only and does not also say destructive, else exec. A missing or
 * contradictory hint never lowers the risk below exec.
 */
export function mcpToolRisk(
  annotations: McpToolAnnotations | undefined,
  operatorRisk?: RiskLevel,
): RiskLevel {
  if (operatorRisk !== undefined) return operatorRisk;
  return annotations?.readOnlyHint === true && annotations.destructiveHint !== true ? "read_only" : "exec";
}
