import type { AnyTool, ToolExecutionContext, ToolResult } from "../../src/catalog/index.js";
import type { Journal } from "../../src/journal/index.js";
import {
  createToolExecutionContext,
  invokeTool,
  type ToolExecutionContextOptions,
} from "../../src/tools/index.js";

/** A context for one call of `tool` with `args`: an attended CLI run in `workspace` that allows the tool. */
export function toolContext(
  tool: AnyTool,
  args: unknown,
  overrides: Partial<ToolExecutionContextOptions> = {},
): ToolExecutionContext {
  return createToolExecutionContext({
    executionId: "run-1",
    traceId: "trace-1",
    sessionKey: "session-1",
    userId: "alice",
    agentId: "agent-1",
    call: { toolName: tool.name, callIndex: 0, params: args },
    allowedTools: [tool.name],
    channel: "cli",
    unattended: false,
    workspace: "/nonexistent-workspace",
    ...overrides,
  });
}

/** Validates and runs one call through invokeTool with {@link toolContext}. */
export function callTool(
  tool: AnyTool,
  args: unknown,
  overrides: Partial<ToolExecutionContextOptions> = {},
): Promise<ToolResult> {
  return invokeTool(tool, args, toolContext(tool, args, overrides));
}

/**
 * One call under the journal's exactly-once protocol, as the agent loop runs it (claim → execute →
 * complete; a completed key returns its recorded result without executing). Returns the result and
 * whether it was a replay.
 */
export async function journalledCall(
  journal: Journal,
  runId: string,
  tool: AnyTool,
  args: unknown,
  ctx: ToolExecutionContext,
): Promise<{ result: ToolResult; replay: boolean }> {
  const key = ctx.idempotencyKey;
  const claim = await journal.claim({ runId, key, owner: "test-worker", leaseMs: 30_000 });
  if (claim.state === "completed") return { result: claim.record.result as ToolResult, replay: true };
  if (claim.state !== "claimed") throw new Error(`unexpected journal state ${claim.state}`);
  const result = await invokeTool(tool, args, ctx);
  const done = await journal.complete({ runId, key, owner: "test-worker", result });
  return { result: done.record.result as ToolResult, replay: false };
}
