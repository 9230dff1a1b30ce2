export { auditKeys, chainHash, GENESIS_HASH } from "./audit-chain.js";
export {
  AUDIT_KINDS,
  AUDIT_VERDICTS,
  AuditEntry,
  AuditEvent,
  type AuditKind,
  type AuditRecord,
  type AuditVerdict,
  decodeAuditFields,
  EXECUTION_OUTCOMES,
  type ExecutionOutcome,
  OPERATOR_ACTIONS,
  type OperatorAction,
  type OperatorAuditEntry,
  type ToolAuditEntry,
} from "./audit-entry.js";
export { isSecretName, REDACTED, redactSecrets, SECRET_NAME_FRAGMENTS } from "./audit-redact.js";
export {
  type AuditAppendResult,
  type AuditHead,
  AuditTrail,
  type AuditTrailOptions,
  type PreparedAuditEvent,
} from "./audit-trail.js";
export {
  AUDIT_BREAKS,
  type AuditBreak,
  type AuditVerification,
  type VerifyAuditOptions,
  verifyAudit,
} from "./audit-verify.js";
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
  type CompleteThenClaimInput,
  DEFAULT_JOURNAL_PREFIX,
  DEFAULT_JOURNAL_RETENTION_MS,
  type EncodedJournalResult,
  encodeJournalResult,
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
