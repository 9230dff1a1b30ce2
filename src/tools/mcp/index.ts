export {
  type ConnectedMcpServers,
  type ConnectMcpOptions,
  connectMcpServers,
  type McpAbsence,
} from "./connect-mcp-servers.js";
export {
  isStdioSpec,
  type McpHttpServerSpec,
  type McpServerSpec,
  type McpStdioServerSpec,
  type McpToolAnnotations,
  mcpToolRisk,
} from "./mcp-servers.js";
export {
  buildMcpTool,
  type ListedMcpTool,
  type McpCall,
  type McpCallResult,
  renderContent,
} from "./mcp-tool.js";
