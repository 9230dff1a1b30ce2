import { RunnerError } from "../shared/index.js";

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

/**
 * The idempotency key of the model response of agent step `step` (0-based). Tool calls are keyed by
 * their `ctx.idempotencyKey` (tools' `computeIdempotencyKey`, a bare hex SHA-256), so the two kinds
 * never collide.
 */
export function modelStepKey(step: number): string {
  if (!Number.isSafeInteger(step) || step < 0) {
    throw new RunnerError("JOURNAL_INPUT_INVALID", `step must be a whole number >= 0, got ${describe(step)}`);
  }
  return `model:${step}`;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === "number") return String(value);
  return value === null ? "null" : typeof value;
}
