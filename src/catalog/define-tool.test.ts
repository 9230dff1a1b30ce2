import Type from "typebox";
import { describe, expect, it } from "vitest";
import { isRunnerError, type RunnerError } from "../shared/index.js";
import { assertValidTool, defineMcpTool, defineTool } from "./define-tool.js";
import { type AnyTool, Tool } from "./tool.js";
import { toolSuccess } from "./tool-result.js";

const Params = Type.Object({ path: Type.String() });
const run = async () => toolSuccess("ok");

function thrown(fn: () => unknown): RunnerError {
  try {
    fn();
  } catch (err) {
    if (isRunnerError(err)) return err;
    throw err;
  }
  throw new Error("expected a RunnerError");
}

describe("defineTool", () => {
  it("applies the seed's defaults: 30 s timeout, no retries, no streaming, no capabilities", () => {
    const tool = defineTool({ name: "write_file", description: "w", parameters: Params, execute: run });
    expect(tool).toBeInstanceOf(Tool);
    expect(tool).toMatchObject({
      timeoutSeconds: 30,
      maxRetries: 0,
      streamCapable: false,
      capabilities: [],
      riskLevel: "write",
      shouldDefer: false,
      idempotent: false,
    });
  });

  it("defaults riskLevel to the catalog's static risk for a catalog tool", () => {
    expect(
      defineTool({ name: "read_file", description: "r", parameters: Params, execute: run }).riskLevel,
    ).toBe("read_only");
    expect(
      defineTool({ name: "cronjob", description: "c", parameters: Params, execute: run }).riskLevel,
    ).toBe("dangerous");
  });

  it("has fail-closed safety defaults that follow the declared risk", () => {
    const write = defineTool({ name: "write_file", description: "w", parameters: Params, execute: run });
    const read = defineTool({ name: "read_file", description: "r", parameters: Params, execute: run });
    const exec = defineTool({ name: "exec", description: "e", parameters: Params, execute: run });
    const args = { path: "x" };
    expect([write.isReadOnly(args), write.isConcurrencySafe(args), write.isDestructive(args)]).toEqual([
      false,
      false,
      false,
    ]);
    expect([read.isReadOnly(args), read.isConcurrencySafe(args), read.isDestructive(args)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([exec.isReadOnly(args), exec.isConcurrencySafe(args), exec.isDestructive(args)]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it("lets argument-aware metadata depend on the arguments", () => {
    const tool = defineTool({
      name: "exec",
      description: "e",
      parameters: Type.Object({ command: Type.String() }),
      isReadOnly: (args) => args.command === "ls",
      execute: run,
    });
    expect(tool.isReadOnly({ command: "ls" })).toBe(true);
    expect(tool.isConcurrencySafe({ command: "ls" })).toBe(true);
    expect(tool.isReadOnly({ command: "rm -rf x" })).toBe(false);
  });

  it("disables a network tool without network unless it says otherwise", () => {
    const fetch = defineTool({
      name: "web_fetch",
      description: "f",
      parameters: Params,
      capabilities: ["network.outbound"],
      execute: run,
    });
    expect(fetch.isEnabled({ networkAvailable: false })).toBe(false);
    expect(fetch.isEnabled({ networkAvailable: true })).toBe(true);
  });

  it("disables a catalog network tool without network even when it declares no capabilities", () => {
    const search = defineTool({ name: "web_search", description: "s", parameters: Params, execute: run });
    expect(search.isEnabled({ networkAvailable: false })).toBe(false);
    const read = defineTool({ name: "read_file", description: "r", parameters: Params, execute: run });
    expect(read.isEnabled({ networkAvailable: false })).toBe(true);
  });

  it("derives readinessDetail from isReady when only isReady is given", () => {
    const tool = defineTool({
      name: "web_search",
      description: "s",
      parameters: Params,
      isReady: () => false,
      execute: run,
    });
    expect(tool.readinessDetail()).toEqual({ ready: false, detail: "not ready" });
    expect(tool.isReady()).toBe(false);
  });

  it("passes every call through to the gate unless the tool checks permissions itself", () => {
    const tool = defineTool({ name: "write_file", description: "w", parameters: Params, execute: run });
    expect(tool.checkPermissions({ path: "x" }, {} as never)).toEqual({ behavior: "passthrough" });
  });

  it.each([
    ["an unknown name", { name: "rm_rf" }, "TOOL_UNKNOWN"],
    ["a reserved name", { name: "agents_list" }, "TOOL_RESERVED"],
    ["an empty description", { description: " " }, "TOOL_DEFINITION_INVALID"],
    ["a non-object schema", { parameters: Type.String() }, "TOOL_DEFINITION_INVALID"],
    ["a zero timeout", { timeoutSeconds: 0 }, "TOOL_DEFINITION_INVALID"],
    ["fractional retries", { maxRetries: 1.5 }, "TOOL_DEFINITION_INVALID"],
    ["an unknown capability", { capabilities: ["fs.delete"] }, "TOOL_DEFINITION_INVALID"],
    ["an unknown risk", { riskLevel: "harmless" }, "TOOL_DEFINITION_INVALID"],
    ["an mcp__ name outside defineMcpTool", { name: "mcp__slack__send" }, "TOOL_DEFINITION_INVALID"],
  ])("refuses %s", (_what, patch, code) => {
    const err = thrown(() =>
      defineTool({
        name: "write_file",
        description: "w",
        parameters: Params,
        execute: run,
        ...(patch as object),
      }),
    );
    expect(err.code).toBe(code);
  });
});

describe("defineMcpTool", () => {
  it("names the tool mcp__<server>__<tool>, marks it mcp.call, exec and deferred when nothing is declared", () => {
    const tool = defineMcpTool({
      server: "slack",
      tool: "send",
      description: "Send",
      parameters: Params,
      execute: run,
    });
    expect(tool.name).toBe("mcp__slack__send");
    expect(tool.riskLevel).toBe("exec");
    expect(tool.capabilities).toEqual(["mcp.call"]);
    expect(tool.shouldDefer).toBe(true);
  });

  it("keeps a declared risk and adds declared capabilities after mcp.call", () => {
    const tool = defineMcpTool({
      server: "docs",
      tool: "lookup",
      description: "Look up",
      parameters: Params,
      declaredRisk: "read_only",
      capabilities: ["network.outbound", "mcp.call"],
      execute: run,
    });
    expect(tool.riskLevel).toBe("read_only");
    expect(tool.capabilities).toEqual(["mcp.call", "network.outbound"]);
  });
});

describe("Tool subclasses", () => {
  class ListDir extends Tool<typeof Params> {
    readonly name = "list_dir";
    readonly description = "List";
    readonly parameters = Params;
    override riskLevel = "read_only" as const;
    async execute() {
      return toolSuccess("a\nb");
    }
  }

  it("inherit the defaults and pass validation", () => {
    const tool: AnyTool = new ListDir();
    expect(() => assertValidTool(tool)).not.toThrow();
    expect(tool.timeoutSeconds).toBe(30);
    expect(tool.isReadOnly({ path: "." })).toBe(true);
  });
});
