import type { AnyTool, ToolExecutionContext, ToolResult } from "../../tools/index.js";
import { invokeTool, toolFailure } from "../../tools/index.js";
import { retryDelayMs, shouldRetryTool } from "../execution/retry.js";

/**
 * Runs an allowed call with the tool's timeout and retries. A timeout is reported as a `timeout`
 * result; a retry happens only when shouldRetryTool says repeating is safe.
 */
export async function executeWithPolicy(
  tool: AnyTool,
  args: unknown,
  ctx: ToolExecutionContext,
  safeToRepeat: boolean,
): Promise<ToolResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await withTimeout(tool, args, ctx);
    if (result.success) return result;
    if (!shouldRetryTool(result.errorKind, { attempt, maxRetries: tool.maxRetries, safeToRepeat }))
      return result;
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
  }
}

async function withTimeout(tool: AnyTool, args: unknown, ctx: ToolExecutionContext): Promise<ToolResult> {
  const ms = tool.timeoutSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(
      () =>
        resolve(toolFailure("timeout", `Tool "${tool.name}" did not finish within ${tool.timeoutSeconds} s`)),
      ms,
    );
  });
  try {
    return await Promise.race([invokeTool(tool, args, ctx), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
