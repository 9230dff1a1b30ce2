import { assertNever, isRunnerError, MODEL_ERROR_CODES, type ModelErrorCode } from "../../shared/index.js";

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
