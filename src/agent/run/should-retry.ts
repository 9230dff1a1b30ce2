import { type ErrorCode, isRunnerError } from "../../shared/index.js";

/**
 * Whether a run that failed with this error is retried by the queue. One table over every error
 * code (adding a code breaks the build here until someone decides): bad input and refusals never
 * retry; unavailable services and lost claims do (the journal keeps retries from repeating effects).
 */
const RETRYABLE: Record<ErrorCode, boolean> = {
  CONFIG_INVALID: false,
  CONFIG_FILE_UNREADABLE: false,
  CONFIG_SECRET_MISSING: false,
  TOOL_UNKNOWN: false,
  TOOL_RESERVED: false,
  TOOL_NOT_READY: false,
  PAYLOAD_INVALID: false,
  PAYLOAD_UNREADABLE: false,
  JOURNAL_CORRUPT: false,
  APPROVAL_NOT_FOUND: false,
  APPROVAL_NOT_ALLOWED: false,
  APPROVAL_GRANT_NOT_FOUND: false,
  SLACK_SIGNATURE_INVALID: false,
  SLACK_REQUEST_STALE: false,
  SLACK_REQUEST_REPLAYED: false,
  SCHEDULE_INVALID: false,
  REDIS_UNAVAILABLE: true,
  REDIS_BINARY_MISSING: false,
  CLI_USAGE: false,
  INTERNAL: false,
  JOURNAL_CLAIM_LOST: true,
  JOURNAL_INPUT_INVALID: false,
  AUDIT_ENTRY_INVALID: false,
  AUDIT_CORRUPT: false,
  AUDIT_APPEND_CONFLICT: true,
  MODEL_TIMEOUT: true,
  MODEL_ABORTED: true,
  MODEL_RATE_LIMITED: true,
  MODEL_UNAVAILABLE: true,
  MODEL_AUTH_FAILED: false,
  MODEL_REQUEST_REJECTED: false,
  MODEL_RESPONSE_INVALID: true,
  MODEL_SCRIPT_INVALID: false,
  MODEL_SCRIPT_EXHAUSTED: false,
  MODEL_OVERLOADED: true,
  MODEL_CONTEXT_TOO_LONG: false,
  TOOL_CONTEXT_INVALID: false,
  TOOL_DEFINITION_INVALID: false,
  APPROVAL_CORRUPT: false,
  APPROVAL_INPUT_INVALID: false,
  APPROVAL_NOTIFY_FAILED: true,
  RUN_NOT_FOUND: false,
  RUN_CANCELLED: false,
  WORKSPACE_PATH_CHANGED: false,
  WORKSPACE_LAYER_FAILED: false,
  // Another process lets go of the layer soon (its run parks or ends): runs park for it instead.
  WORKSPACE_LAYER_BUSY: true,
  HTTP_PORT_UNAVAILABLE: false,
  RUN_NOT_CANCELLABLE: false,
  RUN_NOT_RETRYABLE: false,
  RUN_PAYLOAD_GONE: false,
  TELEMETRY_CONFIG_INVALID: false,
};

/** True when the queue should retry a run that threw `err`. Unknown (non-Runner) errors retry: they are crashes. */
export function shouldRetryRun(err: unknown): boolean {
  if (isRunnerError(err)) return RETRYABLE[err.code];
  return true;
}
