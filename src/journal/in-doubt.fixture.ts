import { assertNever } from "../shared/index.js";
import type { JournalRecord } from "./records.js";

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
