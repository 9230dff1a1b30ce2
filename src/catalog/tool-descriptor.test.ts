import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { ToolName } from "./catalog.js";
import type { McpToolName } from "./catalog-lookup.js";
import { defineTool } from "./define-tool.js";
import { describeTool } from "./tool-descriptor.js";
import { toolSuccess } from "./tool-result.js";

const tool = (name: ToolName | McpToolName, isEnabled?: () => boolean) =>
  defineTool({
    name,
    description: `${name} (test tool)`,
    parameters: Type.Object({}),
    riskLevel: "read_only",
    ...(isEnabled ? { isEnabled } : {}),
    execute: async () => toolSuccess("ok"),
  });

const offline = {
  networkAvailable: false,
  networkUnavailableReason: "no default route and no proxy configured",
};

describe("a tool's state when the worker found no outbound network", () => {
  it("names the missing network and the worker's reason for a network tool", () => {
    expect(describeTool(tool("web_search"), offline).state).toEqual({
      ready: true,
      enabled: false,
      detail: "no outbound network: no default route and no proxy configured",
    });
  });

  it("keeps the generic reason when the tool would be disabled with network too", () => {
    expect(
      describeTool(
        tool("web_search", () => false),
        offline,
      ).state.detail,
    ).toBe("disabled in this environment (isEnabled returned false)");
  });

  it("keeps the generic reason when the worker gave none", () => {
    expect(describeTool(tool("web_search"), { networkAvailable: false }).state.detail).toBe(
      "disabled in this environment (isEnabled returned false)",
    );
  });

  it("leaves a tool that needs no network enabled", () => {
    expect(describeTool(tool("read_file"), offline).state.enabled).toBe(true);
  });
});
