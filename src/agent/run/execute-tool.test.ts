import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { defineTool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { createToolExecutionContext } from "../../tools/index.js";
import { executeWithPolicy } from "./execute-tool.js";

const BASE_OPTIONS = {
  executionId: "e",
  traceId: "t",
  sessionKey: "s",
  userId: "u",
  agentId: "a",
  call: { toolName: "read_file", callIndex: 0, params: {} },
  allowedTools: ["read_file"],
  channel: "api",
  unattended: false,
  workspace: "/tmp",
};
const ctx = createToolExecutionContext(BASE_OPTIONS);

describe("tool execution with the tool's timeout and retries", () => {
  it("aborts the tool's signal at its timeout and reports a timeout result", async () => {
    let aborted: unknown;
    const slow = defineTool({
      name: "read_file",
      description: "waits until aborted",
      parameters: Type.Object({}),
      timeoutSeconds: 0.05,
      execute: (_args, _ctx, signal) =>
        new Promise((resolve) => {
          signal?.addEventListener("abort", () => {
            aborted = signal.reason;
            resolve(toolSuccess("stopped"));
          });
        }),
    });
    const result = await executeWithPolicy(slow, {}, ctx, false);
    expect(result).toMatchObject({ success: false, errorKind: "timeout" });
    expect(String(aborted)).toContain("timed out");
  });

  it("retries a transient failure only when repeating is safe", async () => {
    let calls = 0;
    const flaky = defineTool({
      name: "read_file",
      description: "fails once",
      parameters: Type.Object({}),
      maxRetries: 2,
      execute: async () => (++calls === 1 ? toolFailure("internal", "boom") : toolSuccess("ok")),
    });
    expect(await executeWithPolicy(flaky, {}, ctx, true)).toMatchObject({ success: true });
    expect(calls).toBe(2);
    calls = 0;
    expect(await executeWithPolicy(flaky, {}, ctx, false)).toMatchObject({
      success: false,
      errorKind: "internal",
    });
    expect(calls).toBe(1);
  });

  it("gives each retry its own attemptIndex, counting from the context's", async () => {
    const seen: number[] = [];
    const flaky = defineTool({
      name: "read_file",
      description: "fails twice",
      parameters: Type.Object({}),
      maxRetries: 2,
      execute: async (_args, c) => {
        seen.push(c.attemptIndex);
        return seen.length < 3 ? toolFailure("internal", "boom") : toolSuccess("ok");
      },
    });
    expect(await executeWithPolicy(flaky, {}, ctx, true)).toMatchObject({ success: true });
    expect(seen).toEqual([0, 1, 2]);
    seen.length = 0;
    const rerun = createToolExecutionContext({
      ...BASE_OPTIONS,
      attemptIndex: 1,
      credentials: { TOKEN: "t" },
    });
    let credential: string | undefined;
    const once = defineTool({
      name: "read_file",
      description: "fails once",
      parameters: Type.Object({}),
      maxRetries: 1,
      execute: async (_args, c) => {
        seen.push(c.attemptIndex);
        credential = c.credentials.TOKEN;
        return seen.length < 2 ? toolFailure("timeout", "slow") : toolSuccess("ok");
      },
    });
    await executeWithPolicy(once, {}, rerun, true);
    expect(seen).toEqual([1, 2]);
    expect(credential).toBe("t");
  });
});
