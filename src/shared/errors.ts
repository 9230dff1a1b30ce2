/** The codes the model clients raise (a part of the catalogue; agent/model classifies them). */
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
] as const;
export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];

/**
 * The error catalogue. Every error the runner raises on purpose is a {@link RunnerError} with one of
 * these codes, a message a person can act on (what happened, what is allowed), and structured data.
 */
export const ERROR_CODES = [
  "CONFIG_INVALID",
  "CONFIG_FILE_UNREADABLE",
  "CONFIG_SECRET_MISSING",
  "TOOL_UNKNOWN",
  "TOOL_RESERVED",
  "TOOL_NOT_READY",
  "PAYLOAD_INVALID",
  "PAYLOAD_UNREADABLE",
  "JOURNAL_CORRUPT",
  "APPROVAL_NOT_FOUND",
  "APPROVAL_NOT_ALLOWED",
  "APPROVAL_GRANT_NOT_FOUND",
  "SLACK_SIGNATURE_INVALID",
  "SLACK_REQUEST_STALE",
  "SLACK_REQUEST_REPLAYED",
  "SCHEDULE_INVALID",
  "REDIS_UNAVAILABLE",
  "REDIS_BINARY_MISSING",
  "CLI_USAGE",
  "INTERNAL",
  "JOURNAL_CLAIM_LOST",
  "JOURNAL_INPUT_INVALID",
  "AUDIT_ENTRY_INVALID",
  "AUDIT_CORRUPT",
  "AUDIT_APPEND_CONFLICT",
  ...MODEL_ERROR_CODES,
  "TOOL_CONTEXT_INVALID",
  "TOOL_DEFINITION_INVALID",
  "APPROVAL_CORRUPT",
  "APPROVAL_INPUT_INVALID",
  "APPROVAL_NOTIFY_FAILED",
  "RUN_NOT_FOUND",
  "RUN_CANCELLED",
  "WORKSPACE_PATH_CHANGED",
  "WORKSPACE_LAYER_FAILED",
  "WORKSPACE_LAYER_BUSY",
  "HTTP_PORT_UNAVAILABLE",
  "RUN_NOT_CANCELLABLE",
  "RUN_NOT_RETRYABLE",
  "RUN_PAYLOAD_GONE",
  "TELEMETRY_CONFIG_INVALID",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options for {@link RunnerError}. */
export interface RunnerErrorOptions {
  /** Structured details (paths, values, allowed values). Never put secrets here. */
  data?: Record<string, unknown>;
  /** The underlying error, if any. */
  cause?: unknown;
}

/** Base class of every error the runner raises on purpose. Tests assert the class and the code. */
export class RunnerError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: RunnerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.data = options.data ?? {};
  }
}

/** True when `err` is a {@link RunnerError}, optionally with the given code. */
export function isRunnerError(err: unknown, code?: ErrorCode): err is RunnerError {
  return err instanceof RunnerError && (code === undefined || err.code === code);
}
