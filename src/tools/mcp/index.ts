export { connectMcpServers } from "./connect-mcp-servers.js";
export type { McpServerSpec } from "./mcp-servers.js";
