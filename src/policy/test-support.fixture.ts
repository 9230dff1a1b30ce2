import { describeCatalogTool, TOOL_CATALOG, type ToolDescriptor, type ToolState } from "../catalog/index.js";
import type { ToolPolicyInput } from "./prepare.js";

/**
 * Test support (used only by this folder's tests): every declared, non-reserved catalog tool as a
 * ready candidate, and an input whose every layer is as open as it can be.
 */
export const READY: ToolState = { ready: true, enabled: true, detail: "ready" };

/** Descriptors of every catalog tool (reserved ones included, so the catalog layer can be seen). */
export function catalogDescriptors(state: ToolState = READY): ToolDescriptor[] {
  return TOOL_CATALOG.map((e) => describeCatalogTool(e.name, state) as ToolDescriptor);
}

/** An external tool's descriptor. */
export function mcpDescriptor(name: string, patch: Partial<ToolDescriptor> = {}): ToolDescriptor {
  return {
    name,
    description: `External tool ${name}`,
    keywords: [],
    declaredRisk: undefined,
    declaredCapabilities: ["mcp.call"],
    shouldDefer: false,
    state: READY,
    ...patch,
  };
}

/** The most permissive input: full profile, no lists, personal_cli, network allow, full session. */
export function openInput(patch: Partial<ToolPolicyInput> = {}): ToolPolicyInput {
  return {
    tools: catalogDescriptors(),
    profile: "full",
    lists: [],
    securityProfile: "personal_cli",
    networkPolicy: "allow",
    allowedHosts: [],
    sessionMode: "full",
    restrictToWorkspace: false,
    jobSubsets: [],
    deferred: [],
    ...patch,
  };
}
