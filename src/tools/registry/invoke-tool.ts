import {
  type AnyTool,
  isToolErrorKind,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
  validateToolArgs,
} from "../../catalog/index.js";

/**
 * Runs one tool call after the gate allowed it: checks that the context allows the tool, validates
 * the arguments, checks readiness, then executes. Never throws: a bad call is a `validation` result,
 * a tool outside `ctx.allowedTools` is `denied`, a missing dependency is `not_ready`, and a throw or
 * a malformed result from the tool is `internal`. Timeouts and retries belong to the caller.
 */
export async function invokeTool(
  tool: AnyTool,
  args: unknown,
  ctx: ToolExecutionContext,
  signal?: AbortSignal,
): Promise<ToolResult> {
  if (!ctx.allowedTools.has(tool.name)) {
    return toolFailure("denied", `Tool "${tool.name}" is not in this execution's allowed tools`);
  }
  const validation = validateToolArgs(tool, args);
  if (!validation.ok) return validation.result;
  const readiness = tool.readinessDetail();
  if (!readiness.ready) {
    return toolFailure("not_ready", `Tool "${tool.name}" is not ready: ${readiness.detail}`);
  }
  let result: unknown;
  try {
    result = await tool.execute(validation.args, ctx, signal);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return toolFailure("internal", `Tool "${tool.name}" failed unexpectedly: ${message}`);
  }
  if (!isToolResult(result)) {
    return toolFailure("internal", `Tool "${tool.name}" returned something that is not a ToolResult`);
  }
  return result;
}

function isToolResult(value: unknown): value is ToolResult {
  if (value === null || typeof value !== "object") return false;
  const r = value as Record<string, unknown>;
  if (typeof r.output !== "string") return false;
  if (r.success === true) return true;
  return r.success === false && typeof r.error === "string" && isToolErrorKind(r.errorKind);
}
