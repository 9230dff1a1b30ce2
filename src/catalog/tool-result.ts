/**
 * Why a tool call did not succeed. The agent loop, the journal and the retry policy switch over this
 * closed set, so a new kind breaks the build where it has to be handled.
 * - `business`: the tool ran and reports an expected failure (file not found, HTTP 404).
 * - `validation`: the arguments do not match the tool's parameter schema; nothing ran.
 * - `timeout`: the call exceeded the tool's `timeoutSeconds`.
 * - `denied`: a policy layer, the approval gate or the tool's own `checkPermissions` refused the call.
 * - `not_ready`: a dependency of the tool is missing (`isReady()` is false); nothing ran.
 * - `cancelled`: the job was cancelled while the call was pending or running.
 * - `in_doubt`: a previous attempt may have half-run and the tool is not safe to re-run.
 * - `internal`: the tool threw; a bug, not an expected failure.
 */
export const TOOL_ERROR_KINDS = [
  "business",
  "validation",
  "timeout",
  "denied",
  "not_ready",
  "cancelled",
  "in_doubt",
  "internal",
] as const;
export type ToolErrorKind = (typeof TOOL_ERROR_KINDS)[number];

/** The result of one tool call, as the model and the journal see it. */
export type ToolResult = ToolSuccess | ToolFailure;

/** A successful call. */
export interface ToolSuccess {
  readonly success: true;
  /** Text for the model (the agent loop truncates and spills long output). */
  readonly output: string;
  /** Structured data for the runner (never sent to the model as is), e.g. tool_search's matches. */
  readonly data?: unknown;
}

/** A failed call: `error` says what went wrong and what is allowed; `errorKind` classifies it. */
export interface ToolFailure {
  readonly success: false;
  /** Any partial output produced before the failure ("" when none). */
  readonly output: string;
  readonly error: string;
  readonly errorKind: ToolErrorKind;
  /** Structured details (e.g. the invalid fields of a `validation` failure). */
  readonly data?: unknown;
}

/** A successful result. */
export function toolSuccess(output: string, data?: unknown): ToolSuccess {
  return data === undefined ? { success: true, output } : { success: true, output, data };
}

/** A failed result of the given kind. */
export function toolFailure(errorKind: ToolErrorKind, error: string, data?: unknown): ToolFailure {
  const base = { success: false as const, output: "", error, errorKind };
  return data === undefined ? base : { ...base, data };
}

/** True when `value` is one of {@link TOOL_ERROR_KINDS}. */
export function isToolErrorKind(value: unknown): value is ToolErrorKind {
  return typeof value === "string" && (TOOL_ERROR_KINDS as readonly string[]).includes(value);
}
