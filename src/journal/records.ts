import { z } from "zod";
import { RunnerError } from "../shared/index.js";

/** Statuses of a journal entry: `started` (claimed, side effect may be under way) and `completed`. */
export const JOURNAL_STATUSES = ["started", "completed"] as const;
export type JournalStatus = (typeof JOURNAL_STATUSES)[number];

const claimFields = {
  /** Record schema version. */
  v: z.literal(1),
  /** Who holds (or held) the claim: unique per worker attempt. */
  owner: z.string().min(1),
  /** 1 for the first claim, +1 for each take-over of an in-doubt claim. */
  attempt: z.number().int().positive(),
  /** When the current claim was taken, ms since the epoch (Redis time unless a Clock is injected). */
  claimedAt: z.number().int().nonnegative(),
  /** When the claim lapses unless renewed, ms since the epoch. */
  leaseUntil: z.number().int().nonnegative(),
};

/** The claim state of one idempotency key, as stored in the `s:<key>` field. */
export const JournalState = z.discriminatedUnion("status", [
  z.object({ ...claimFields, status: z.literal("started") }).strict(),
  z
    .object({
      ...claimFields,
      status: z.literal("completed"),
      /** When `complete` recorded the result, ms since the epoch. */
      completedAt: z.number().int().nonnegative(),
    })
    .strict(),
]);
export type JournalState = z.infer<typeof JournalState>;

/** A started entry: claimed, no result yet. */
export type StartedRecord = Extract<JournalState, { status: "started" }> & { key: string };
/** A completed entry with its recorded result (any JSON value the caller stored). */
export type CompletedRecord = Extract<JournalState, { status: "completed" }> & {
  key: string;
  result: unknown;
};
/** One entry of a run's journal. */
export type JournalRecord = StartedRecord | CompletedRecord;

/**
 * Decodes the state field of `key`. Anything that is not valid JSON of the v1 schema is a
 * JOURNAL_CORRUPT error (never treated as absent, which would re-run a side effect).
 */
export function decodeState(runId: string, key: string, raw: string): JournalState {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (cause) {
    throw corrupt(runId, key, "its state is not valid JSON", cause);
  }
  if (isJournalState(json)) return json;
  const parsed = JournalState.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join(".") : "(record)";
    throw corrupt(runId, key, `its state does not match the v1 schema at ${where}: ${issue?.message}`);
  }
  return parsed.data;
}

const STARTED_FIELDS = ["v", "owner", "attempt", "claimedAt", "leaseUntil", "status"] as const;

/**
 * The {@link JournalState} schema written out by hand: every state read from Redis passes here
 * (several per tool call), and this is many times cheaper than the zod parse. It accepts exactly
 * what the schema accepts (strict keys, safe integers); anything it refuses goes through the zod
 * schema, which names the problem (and stays the definition: both must agree).
 */
function isJournalState(json: unknown): json is JournalState {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return false;
  const state = json as Record<string, unknown>;
  const completed = state.status === "completed";
  if (!completed && state.status !== "started") return false;
  const keys = Object.keys(state);
  if (keys.length !== STARTED_FIELDS.length + (completed ? 1 : 0)) return false;
  for (const key of STARTED_FIELDS) if (!Object.hasOwn(state, key)) return false;
  if (completed && !isWholeAtLeast(state.completedAt, 0)) return false;
  return (
    state.v === 1 &&
    typeof state.owner === "string" &&
    state.owner.length > 0 &&
    isWholeAtLeast(state.attempt, 1) &&
    isWholeAtLeast(state.claimedAt, 0) &&
    isWholeAtLeast(state.leaseUntil, 0)
  );
}

function isWholeAtLeast(value: unknown, min: number): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= min;
}

/** Decodes the stored result JSON of a completed `key`. */
export function decodeResult(runId: string, key: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (cause) {
    throw corrupt(runId, key, "its result is not valid JSON", cause);
  }
}

/** Joins a decoded state with its key and (for completed entries) its raw result. */
export function toRecord(
  runId: string,
  key: string,
  state: JournalState,
  rawResult: string | null,
): JournalRecord {
  if (state.status === "started") {
    if (rawResult !== null) throw corrupt(runId, key, "it is started but already has a result");
    return { ...state, key };
  }
  if (rawResult === null) throw corrupt(runId, key, "it is completed but its result is missing");
  return { ...state, key, result: decodeResult(runId, key, rawResult) };
}

/** A JOURNAL_CORRUPT error naming the run, the key and what is wrong. */
export function corrupt(runId: string, key: string, problem: string, cause?: unknown): RunnerError {
  return new RunnerError(
    "JOURNAL_CORRUPT",
    `Journal of run "${runId}" is corrupt at key "${key}": ${problem}. Inspect it with HGETALL; the run cannot be replayed safely until it is repaired.`,
    { data: { runId, key, problem }, cause },
  );
}
