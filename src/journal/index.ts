export { auditKeys, GENESIS_HASH } from "./audit-chain.js";
export {
  AuditEvent,
  type AuditRecord,
  decodeAuditFields,
  OPERATOR_ACTIONS,
  type OperatorAction,
  type OperatorAuditEntry,
  type ToolAuditEntry,
} from "./audit-entry.js";
export { redactSecrets } from "./audit-redact.js";
export { AuditTrail, type PreparedAuditEvent } from "./audit-trail.js";
export { verifyAudit } from "./audit-verify.js";
export { type InDoubtAction, type InDoubtPolicy, resolveInDoubt } from "./in-doubt.js";
export {
  type ClaimInput,
  type ClaimOutcome,
  encodeJournalResult,
  Journal,
  type JournalSnapshot,
} from "./journal.js";
export { journalKey, modelStepKey } from "./keys.js";
export type { JournalRecord } from "./records.js";
