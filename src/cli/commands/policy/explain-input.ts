import {
  describeCatalogTool,
  parseMcpToolName,
  TOOL_CATALOG,
  type ToolDescriptor,
  type ToolState,
} from "../../../catalog/index.js";
import type { LoadedConfig } from "../../../config/index.js";
import type { SessionPermissionMode, ToolListSource, ToolPolicyInput } from "../../../policy/index.js";
import { policyInputFromConfig } from "../../../runtime/index.js";

/** explain does not load tool implementations, so it judges every declared tool as if it were ready. */
const ASSUMED_READY: ToolState = {
  ready: true,
  enabled: true,
  detail: "assumed ready (policy explain does not load tool implementations)",
};

/**
 * The policy input for explaining `tool`: config's own mapping (the session mode is the stricter of
 * the configured one and `--mode`, as a run would get it), with the catalog's tools as candidates
 * and, for an external tool `mcp__<server>__<tool>` whose server is configured, that tool with the
 * server's declared risk (none → exec). Each list is labelled with the config sources that decided
 * it, so a reason can say which file denied a tool.
 */
export function explainInputFromConfig(
  loaded: Pick<LoadedConfig, "config" | "origins">,
  options: { sessionMode?: SessionPermissionMode; tool?: string } = {},
): ToolPolicyInput {
  const { config, origins } = loaded;
  const tools: ToolDescriptor[] = TOOL_CATALOG.map(
    (e) => describeCatalogTool(e.name, ASSUMED_READY) as ToolDescriptor,
  );
  const external = options.tool === undefined ? undefined : parseMcpToolName(options.tool);
  const server = external ? config.tools.mcp.servers[external.server] : undefined;
  if (options.tool !== undefined && external && server) {
    tools.push({
      name: options.tool,
      description: `External tool ${external.tool} of MCP server ${external.server}`,
      keywords: [],
      declaredRisk: server.risk,
      declaredCapabilities: ["mcp.call"],
      shouldDefer: true,
      state: ASSUMED_READY,
    });
  }
  const label = (key: string) =>
    (origins.get(`tools.${key}`) ?? origins.get("tools") ?? ["config"]).join(", ");
  const lists: ToolListSource[] = [
    { label: label("allow"), allow: config.tools.allow },
    { label: label("also_allow"), alsoAllow: config.tools.also_allow },
    { label: label("deny"), deny: config.tools.deny },
  ];
  const input = policyInputFromConfig(config, {
    tools,
    ...(options.sessionMode ? { sessionMode: options.sessionMode } : {}),
  });
  return { ...input, lists };
}
