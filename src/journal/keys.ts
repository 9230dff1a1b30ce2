import { hashCanonical, RunnerError } from "../shared/index.js";

/** Longest accepted run id, idempotency key or owner id, in characters. */
export const MAX_ID_LENGTH = 512;

/**
 * Checks an id that becomes part of a Redis key or a hash field: non-empty, at most
 * {@link MAX_ID_LENGTH} characters, no `{` or `}` (they would break the Redis Cluster hash tag).
 */
export function assertId(what: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new RunnerError(
      "JOURNAL_INPUT_INVALID",
      `${what} must be a string of 1 to ${MAX_ID_LENGTH} characters, got ${describe(value)}`,
      { data: { what } },
    );
  }
  if (/[{}]/.test(value)) {
    throw new RunnerError(
      "JOURNAL_INPUT_INVALID",
      `${what} must not contain "{" or "}" (they are Redis Cluster hash-tag delimiters), got ${JSON.stringify(value)}`,
      { data: { what } },
    );
  }
}

/** Checks a key prefix chosen by the operator: non-empty, no braces, no trailing colon. */
export function assertKeyPrefix(prefix: unknown): asserts prefix is string {
  assertId("key prefix", prefix);
  if (prefix.endsWith(":")) {
    throw new RunnerError(
      "JOURNAL_INPUT_INVALID",
      `key prefix must not end with ":" (one is added), got ${JSON.stringify(prefix)}`,
    );
  }
}

/** Checks a duration in milliseconds: a positive safe integer. */
export function assertPositiveMs(what: string, value: unknown): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new RunnerError(
      "JOURNAL_INPUT_INVALID",
      `${what} must be a positive whole number of milliseconds, got ${describe(value)}`,
      { data: { what } },
    );
  }
}

/**
 * The Redis key of a run's journal hash: `<prefix>:{run:<runId>}:journal`. The hash tag keeps every
 * key of one run in one Redis Cluster slot, so the Lua scripts may touch them together.
 */
export function journalKey(prefix: string, runId: string): string {
  return `${prefix}:{run:${runId}}:journal`;
}

/** The idempotency key of the model response of agent step `step` (0-based). */
export function modelStepKey(step: number): string {
  if (!Number.isSafeInteger(step) || step < 0) {
    throw new RunnerError("JOURNAL_INPUT_INVALID", `step must be a whole number >= 0, got ${describe(step)}`);
  }
  return `model:${step}`;
}

/** What identifies one tool call of a run, for {@link toolCallKey}. */
export interface ToolCallKeyInput {
  /** Trace id of the run. */
  traceId: string;
  /** Tool name. */
  tool: string;
  /** Agent step the call belongs to (0-based). Stable across replays because model responses are journalled. */
  step: number;
  /** Position of the call in the model response of that step (0-based). */
  callIndex: number;
  /** The call's parsed arguments; hashed in canonical form, so key order does not matter. */
  args: unknown;
}

/**
 * The idempotency key of a tool call (DESIGN.md §7): `tool:<sha-256 of canonical JSON of trace id,
 * tool, step, call index and arguments>`. The same call in a replay gets the same key; a call with
 * changed arguments gets a new one.
 */
export function toolCallKey(input: ToolCallKeyInput): string {
  const { traceId, tool, step, callIndex, args } = input;
  return `tool:${hashCanonical({ traceId, tool, step, callIndex, args })}`;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === "number") return String(value);
  return value === null ? "null" : typeof value;
}
