import Type from "typebox";
import { describe, expect, it } from "vitest";
import {
  defineMcpTool,
  defineTool,
  describeCatalogTool,
  TOOL_CATALOG,
  toolSuccess,
} from "../../catalog/index.js";
import { isRunnerError } from "../../shared/index.js";
import { createToolRegistry } from "./registry.js";

const Params = Type.Object({});
const run = async () => toolSuccess("ok");
const online = { networkAvailable: true };

describe("createToolRegistry", () => {
  const readFile = defineTool({ name: "read_file", description: "Read", parameters: Params, execute: run });
  const webSearch = defineTool({
    name: "web_search",
    description: "Search",
    parameters: Params,
    capabilities: ["network.outbound"],
    execute: run,
  });
  const imageGenerate = defineTool({
    name: "image_generate",
    description: "Draw",
    parameters: Params,
    readinessDetail: () => ({ ready: false, detail: "IMAGE_API_KEY is not set" }),
    execute: run,
  });
  const broken = defineTool({
    name: "vision_analyze",
    description: "See",
    parameters: Params,
    readinessDetail: () => {
      throw new Error("probe crashed");
    },
    execute: run,
  });

  it("keeps ready and enabled tools present and filters out the rest with their reasons", () => {
    const registry = createToolRegistry([readFile, webSearch, imageGenerate, broken]);
    const offline = registry.present({ networkAvailable: false });
    expect(offline.present.map((t) => t.name)).toEqual(["read_file"]);
    const reasons = new Map(offline.absent.map((a) => [a.name, a.reason]));
    expect(reasons.get("web_search")).toContain("disabled in this environment");
    expect(reasons.get("image_generate")).toBe("not ready: IMAGE_API_KEY is not set");
    expect(reasons.get("vision_analyze")).toContain("probe crashed");
    expect(reasons.get("exec")).toBe("declared in the catalog but no implementation is registered");
    expect(reasons.has("agents_list")).toBe(false);
    expect(registry.present(online).present.map((t) => t.name)).toEqual(["read_file", "web_search"]);
  });

  it("accounts for every declared, non-reserved catalog tool exactly once", () => {
    const { present, absent } = createToolRegistry([readFile]).present(online);
    const names = [...present.map((t) => t.name), ...absent.map((a) => a.name)].sort();
    expect(names).toEqual(
      TOOL_CATALOG.filter((e) => !e.reserved)
        .map((e) => e.name)
        .sort(),
    );
  });

  it("refuses a name registered twice", () => {
    let caught: unknown;
    try {
      createToolRegistry([readFile, readFile]);
    } catch (err) {
      caught = err;
    }
    expect(isRunnerError(caught, "TOOL_DEFINITION_INVALID")).toBe(true);
  });

  it("describes tools for policy with catalog keywords and the live state", () => {
    const mcp = defineMcpTool({
      server: "slack",
      tool: "send",
      description: "Send a Slack message",
      parameters: Params,
      keywords: ["chat"],
      execute: run,
    });
    const [read, external] = createToolRegistry([readFile, mcp]).describe(online);
    expect(read).toMatchObject({ name: "read_file", declaredRisk: "read_only", shouldDefer: false });
    expect(read?.keywords).toEqual(expect.arrayContaining(["cat"]));
    expect(external).toMatchObject({
      name: "mcp__slack__send",
      declaredRisk: "exec",
      declaredCapabilities: ["mcp.call"],
      shouldDefer: true,
      keywords: ["chat"],
      state: { ready: true, enabled: true, detail: "ready" },
    });
  });

  it("describes a catalog tool from the catalog alone, and nothing for unknown names", () => {
    const state = { ready: true, enabled: true, detail: "assumed" };
    expect(describeCatalogTool("exec", state)).toMatchObject({
      name: "exec",
      declaredRisk: undefined,
      state,
    });
    expect(describeCatalogTool("nope", state)).toBeUndefined();
  });
});
