export { type AllowAlwaysGrant, type GrantAuditPort, grantSummary } from "./allow-always-grant.js";
export { RedisAllowAlwaysStore } from "./allow-always-store.js";
export { type ApprovalPolicy, resolveRequestPolicy } from "./approval-policy.js";
export { ApprovalStore, type FailingTarget } from "./approval-store.js";
export type { ApprovalListing, DamagedRecord } from "./damaged-record.js";
export { ApprovalKeys, approvalIdFor, isApprovalId } from "./keys.js";
export { createPageNonce, secretsEqual, verifyPageNonce } from "./link-tokens.js";
export { resolveParkedCall } from "./parked-call.js";
export {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  APPROVAL_VOTES,
  type ApprovalDecision,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalVote,
  type Approver,
  approvalOutcome,
  type DecisionEntry,
  effectiveStatus,
} from "./record.js";
export {
  DECIDE_REFUSALS,
  type DecideRefusal,
  type DecideResult,
  describeRefusal,
  MAX_COMMENT_LENGTH,
} from "./store-decide.js";
