import { assertNever, IN_DOUBT_POLICIES, type InDoubtPolicy } from "../shared/index.js";
import type { JournalRecord } from "./records.js";

export { IN_DOUBT_POLICIES, type InDoubtPolicy };

/** What to do with one in-doubt call. */
export const IN_DOUBT_ACTIONS = ["rerun", "park", "fail"] as const;
export type InDoubtAction = (typeof IN_DOUBT_ACTIONS)[number];

/** Input of {@link resolveInDoubt}. */
export interface InDoubtInput {
  /** `tool.isReadOnly(args)` for the recorded arguments. */
  readOnlyForArgs: boolean;
  /** `tool.idempotent`: the tool dedupes by `ctx.idempotencyKey` itself. */
  idempotent: boolean;
  /** The configured policy for every other tool. */
  policy: InDoubtPolicy;
}

/**
 * Decides an in-doubt call (started, never completed, claim lapsed): re-run — with the same
 * idempotency key — only when a second execution cannot change the world twice (read-only for these
 * arguments, or the tool declares itself idempotent); otherwise a person decides or the run fails.
 * Never a silent second execution.
 */
export function resolveInDoubt(input: InDoubtInput): InDoubtAction {
  if (input.readOnlyForArgs || input.idempotent) return "rerun";
  switch (input.policy) {
    case "park":
      return "park";
    case "fail":
      return "fail";
    default:
      return assertNever(input.policy, "in-doubt policy");
  }
}

/** Where a journal entry stands at a given time. */
export const RECORD_STANDINGS = ["completed", "live", "in_doubt"] as const;
export type RecordStanding = (typeof RECORD_STANDINGS)[number];

/**
 * Where `record` stands at `now` (ms, on the journal's time source, e.g. `JournalSnapshot.now`):
 * completed, started with a live claim, or started with a lapsed claim (in doubt).
 * Only `claim` is authoritative; this is for reports and replay planning.
 */
export function recordStanding(record: JournalRecord, now: number): RecordStanding {
  switch (record.status) {
    case "completed":
      return "completed";
    case "started":
      return record.leaseUntil > now ? "live" : "in_doubt";
    default:
      return assertNever(record, "journal record status");
  }
}
