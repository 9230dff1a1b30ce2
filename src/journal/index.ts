export {
  IN_DOUBT_ACTIONS,
  IN_DOUBT_POLICIES,
  type InDoubtAction,
  type InDoubtInput,
  type InDoubtPolicy,
  RECORD_STANDINGS,
  type RecordStanding,
  recordStanding,
  resolveInDoubt,
} from "./in-doubt.js";
export {
  type ClaimInput,
  type ClaimOutcome,
  type CompleteInput,
  type CompleteOutcome,
  DEFAULT_JOURNAL_PREFIX,
  DEFAULT_JOURNAL_RETENTION_MS,
  Journal,
  type JournalOptions,
  type JournalSnapshot,
  type ReclaimInput,
} from "./journal.js";
export { journalKey, MAX_ID_LENGTH, modelStepKey } from "./keys.js";
export {
  type CompletedRecord,
  JOURNAL_STATUSES,
  type JournalRecord,
  JournalState,
  type JournalStatus,
  type StartedRecord,
} from "./records.js";
