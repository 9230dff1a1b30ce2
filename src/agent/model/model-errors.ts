import { assertNever, type ErrorCode, isRunnerError } from "../../shared/index.js";

/** Error codes the model clients raise. */
export const MODEL_ERROR_CODES = [
  "MODEL_TIMEOUT",
  "MODEL_ABORTED",
  "MODEL_RATE_LIMITED",
  "MODEL_UNAVAILABLE",
  "MODEL_AUTH_FAILED",
  "MODEL_REQUEST_REJECTED",
  "MODEL_RESPONSE_INVALID",
  "MODEL_SCRIPT_INVALID",
  "MODEL_SCRIPT_EXHAUSTED",
  "MODEL_OVERLOADED",
  "MODEL_CONTEXT_TOO_LONG",
] as const satisfies readonly ErrorCode[];
export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];

/**
 * Whether a model error is transient (worth a retry with backoff). One exhaustive switch, so a new
 * code must be classified before it compiles.
 */
export function isRetryableModelErrorCode(code: ModelErrorCode): boolean {
  switch (code) {
    case "MODEL_TIMEOUT":
    case "MODEL_RATE_LIMITED":
    case "MODEL_UNAVAILABLE":
    // Anthropic 529 / a 503: the provider is busy, not broken.
    case "MODEL_OVERLOADED":
      return true;
    // The caller cancelled: retrying would ignore the cancellation.
    case "MODEL_ABORTED":
    // Wrong key, wrong model, a request the server refuses, or a server that does not speak the
    // protocol: the same request fails the same way again.
    case "MODEL_AUTH_FAILED":
    case "MODEL_REQUEST_REJECTED":
    case "MODEL_RESPONSE_INVALID":
    case "MODEL_SCRIPT_INVALID":
    case "MODEL_SCRIPT_EXHAUSTED":
    // The same history is just as long next time; the context budget must shrink it first.
    case "MODEL_CONTEXT_TOO_LONG":
      return false;
    default:
      return assertNever(code, "model error code");
  }
}

/** True only for a RunnerError with a transient MODEL_* code; anything else is not retried. */
export function shouldRetryModelError(err: unknown): boolean {
  if (!isRunnerError(err)) return false;
  const code = err.code as string;
  if (!(MODEL_ERROR_CODES as readonly string[]).includes(code)) return false;
  return isRetryableModelErrorCode(code as ModelErrorCode);
}
