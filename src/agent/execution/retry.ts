import type { ToolErrorKind } from "../../catalog/index.js";
import { assertNever } from "../../shared/index.js";

/** What the caller knows about the call when deciding on a retry. */
export interface RetryContext {
  /** Attempts already made (1 after the first). */
  attempt: number;
  /** The tool's `maxRetries`. */
  maxRetries: number;
  /** Read-only for these arguments, or the tool declares itself idempotent. */
  safeToRepeat: boolean;
}

/**
 * Whether a failed attempt is tried again. Only failures that may be transient are retried, and a
 * call that may have had a side effect (timeout, internal error) only when repeating it is safe, so
 * a retry never causes a side effect twice.
 */
export function shouldRetryTool(kind: ToolErrorKind, context: RetryContext): boolean {
  if (context.attempt > context.maxRetries) return false;
  switch (kind) {
    case "timeout":
    case "internal":
      return context.safeToRepeat;
    case "business":
    case "validation":
    case "denied":
    case "not_ready":
    case "cancelled":
    case "in_doubt":
      return false;
    default:
      return assertNever(kind, "tool error kind");
  }
}

/** Exponential backoff with a cap: 200 ms, 400 ms, 800 ms, ... at most 10 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(10_000, 200 * 2 ** Math.max(0, attempt - 1));
}
