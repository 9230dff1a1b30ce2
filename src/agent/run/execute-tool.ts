import type { AnyTool, ToolExecutionContext, ToolResult } from "../../catalog/index.js";
import { toolFailure } from "../../catalog/index.js";
import { contextForAttempt, invokeTool } from "../../tools/index.js";
import { retryDelayMs, shouldRetryTool } from "../execution/retry.js";

/**
 * Runs an allowed call with the tool's timeout and retries. A timeout is reported as a `timeout`
 * result; a retry happens only when shouldRetryTool says repeating is safe, and each retry sees its
 * own `ctx.attemptIndex` (the given context's, +1 per retry).
 */
export async function executeWithPolicy(
  tool: AnyTool,
  args: unknown,
  ctx: ToolExecutionContext,
  safeToRepeat: boolean,
  runSignal?: AbortSignal,
): Promise<ToolResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await withTimeout(
      tool,
      args,
      contextForAttempt(ctx, ctx.attemptIndex + attempt - 1),
      runSignal,
    );
    if (result.success || runSignal?.aborted) return result;
    if (!shouldRetryTool(result.errorKind, { attempt, maxRetries: tool.maxRetries, safeToRepeat }))
      return result;
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
  }
}

/**
 * One attempt with the tool's timeout: at the deadline the tool's AbortSignal fires (so it can stop
 * its work) and the result is `timeout`, even if the tool ignores the signal. A cancelled run fires
 * it too, and the attempt ends `cancelled` at once.
 */
async function withTimeout(
  tool: AnyTool,
  args: unknown,
  ctx: ToolExecutionContext,
  runSignal: AbortSignal | undefined,
): Promise<ToolResult> {
  const ms = tool.timeoutSeconds * 1000;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onCancel: (() => void) | undefined;
  const timeout = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`timed out after ${tool.timeoutSeconds} s`));
      resolve(toolFailure("timeout", `Tool "${tool.name}" did not finish within ${tool.timeoutSeconds} s`));
    }, ms);
    onCancel = () => {
      controller.abort(new Error("the run was cancelled"));
      resolve(toolFailure("cancelled", `Tool "${tool.name}" was stopped: the run was cancelled`));
    };
    if (runSignal?.aborted) onCancel();
    else runSignal?.addEventListener("abort", onCancel, { once: true });
  });
  try {
    return await Promise.race([invokeTool(tool, args, ctx, controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
    if (onCancel) runSignal?.removeEventListener("abort", onCancel);
  }
}
