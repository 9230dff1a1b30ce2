export {
  type AllowAlwaysGrant,
  DEFAULT_ALLOW_ALWAYS_TTL_MS,
  type GrantAuditPort,
  grantSummary,
} from "./allow-always-grant.js";
export { type AllowAlwaysStoreOptions, RedisAllowAlwaysStore } from "./allow-always-store.js";
export {
  approvalLink,
  composeMessage,
  formatTime,
  MAIL_ARGS_LIMIT,
  MESSAGE_KINDS,
  type MessageContent,
  type MessageKind,
  renderArgs,
  requestFacts,
} from "./approval-message.js";
export {
  type ApprovalPolicy,
  DEFAULT_EXECUTE_GRACE_MS,
  MAX_REQUIRED_APPROVALS,
  type PolicySubject,
  type ResolvedRequestPolicy,
  resolveRequestPolicy,
  validateApprovalPolicy,
} from "./approval-policy.js";
export {
  ApprovalStore,
  type ApprovalStoreOptions,
  DEFAULT_APPROVAL_RETENTION_MS,
  DEFAULT_MAX_ARGS_BYTES,
  type FailingTarget,
  FETCH_LOG_CAP,
  type RegisterResult,
  type TokenLookup,
} from "./approval-store.js";
export {
  type ApprovalStory,
  type ApprovalStorySource,
  cutWithNote,
  defangLinks,
  describeStep,
  STORY_MAIL_STEPS,
  STORY_MAIL_TEXT_LIMIT,
  STORY_PAGE_STEPS,
  type StoryStep,
  summariseArgs,
} from "./approval-story.js";
export {
  type ChatItem,
  type ChatMessage,
  chatPayload,
  jsonPayload,
  slackPayload,
  teamsPayload,
} from "./chat-payloads.js";
export { ChatWebhookNotifier, type ChatWebhookSettings } from "./chat-webhook-notifier.js";
export { type CreateNotifiersOptions, createNotifiers } from "./create-notifiers.js";
export type { DecisionEvent } from "./decision-events.js";
export { EmailNotifier, type SmtpSettings } from "./email-notifier.js";
export {
  type ExecutableCheck,
  type ExecutableCheckInput,
  judgeExecutable,
  NOT_EXECUTABLE_REASONS,
  type NotExecutableReason,
} from "./executable-check.js";
export { ApprovalKeys, approvalIdFor, DEFAULT_APPROVALS_PREFIX, isApprovalId } from "./keys.js";
export {
  createPageNonce,
  findTokenHash,
  hashLinkToken,
  isLinkTokenShape,
  PAGE_NONCE_MAX_AGE_MS,
  secretsEqual,
  verifyPageNonce,
} from "./link-tokens.js";
export {
  ApprovalNotifications,
  type ApprovalNotificationsOptions,
  type EscalationAuditPort,
  type NotifyOutcome,
  type RetryOutcome,
} from "./notifications.js";
export {
  type ApprovalNotifier,
  type DigestItem,
  LogNotifier,
  type NotificationMessage,
} from "./notifier.js";
export { composeOwnerNotice, isBarredOwner } from "./owner-notice.js";
export { type ParkedCallAction, resolveParkedCall } from "./parked-call.js";
export {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  type ApprovalDecision,
  ApprovalRecord,
  type ApprovalStatus,
  Approver,
  approvalOutcome,
  DECISION_CHANNELS,
  type DecisionChannel,
  DecisionEntry,
  effectiveStatus,
  FetchEntry,
} from "./record.js";
export { buildRequestFields, type RegisterInput } from "./request-fields.js";
export { type RetryOptions, withRetry } from "./retry.js";
export { DEFAULT_SEND_LEASE_MS, SendLease, type SendLeaseStore } from "./send-lease.js";
export {
  DECIDE_REFUSALS,
  type DecideInput,
  type DecideRefusal,
  type DecideResult,
  type DecisionActor,
  describeRefusal,
  MAX_COMMENT_LENGTH,
} from "./store-decide.js";
export { TerminalNotifier } from "./terminal-notifier.js";
export { WebhookNotifier, type WebhookSettings } from "./webhook-notifier.js";
