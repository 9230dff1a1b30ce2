import Type from "typebox";
import { describe, expect, it } from "vitest";
import { defineTool, type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { createToolExecutionContext } from "./execution-context.js";
import { invokeTool } from "./invoke-tool.js";

const Params = Type.Object({ path: Type.String() });

function ctxFor(allowed: string[]) {
  return createToolExecutionContext({
    executionId: "e",
    traceId: "t",
    sessionKey: "s",
    userId: "u",
    agentId: "a",
    call: { toolName: "read_file", callIndex: 0, params: {} },
    allowedTools: allowed,
    channel: "cli",
    workspace: "/srv/work",
    unattended: false,
  });
}

function readFile(execute: (args: { path: string }) => Promise<ToolResult>, ready = true) {
  return defineTool({
    name: "read_file",
    description: "Read",
    parameters: Params,
    readinessDetail: () => ({ ready, detail: ready ? "ready" : "disk not mounted" }),
    execute,
  });
}

describe("invokeTool", () => {
  it("runs a valid call and returns the tool's result", async () => {
    const result = await invokeTool(
      readFile(async (a) => toolSuccess(`read ${a.path}`)),
      { path: "x" },
      ctxFor(["read_file"]),
    );
    expect(result).toEqual({ success: true, output: "read x" });
  });

  it("returns a validation result and never runs the tool on invalid arguments", async () => {
    let ran = false;
    const tool = readFile(async () => {
      ran = true;
      return toolSuccess("");
    });
    const result = await invokeTool(tool, { path: 5 }, ctxFor(["read_file"]));
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(ran).toBe(false);
  });

  it("denies a tool that the execution context does not allow", async () => {
    const result = await invokeTool(
      readFile(async () => toolSuccess("")),
      { path: "x" },
      ctxFor(["list_dir"]),
    );
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
  });

  it("reports a tool that is not ready with its reason", async () => {
    const result = await invokeTool(
      readFile(async () => toolSuccess(""), false),
      { path: "x" },
      ctxFor(["read_file"]),
    );
    expect(result).toMatchObject({ success: false, errorKind: "not_ready" });
    expect(!result.success && result.error).toContain("disk not mounted");
  });

  it("turns a throw into an internal result instead of killing the job", async () => {
    const result = await invokeTool(
      readFile(async () => {
        throw new Error("boom");
      }),
      { path: "x" },
      ctxFor(["read_file"]),
    );
    expect(result).toMatchObject({ success: false, errorKind: "internal" });
    expect(!result.success && result.error).toContain("boom");
  });

  it("turns a malformed result into an internal result", async () => {
    const result = await invokeTool(
      readFile(async () => ({ ok: 1 }) as never),
      { path: "x" },
      ctxFor(["read_file"]),
    );
    expect(result).toMatchObject({ success: false, errorKind: "internal" });
  });

  it("passes a business failure through unchanged", async () => {
    const failure = toolFailure("business", "file not found: x");
    const result = await invokeTool(
      readFile(async () => failure),
      { path: "x" },
      ctxFor(["read_file"]),
    );
    expect(result).toBe(failure);
  });
});
