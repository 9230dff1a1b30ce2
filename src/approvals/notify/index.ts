export {
  approvalLink,
  composeMessage,
  formatTime,
  type MessageContent,
  renderArgs,
  requestFacts,
} from "./approval-message.js";
export {
  type ApprovalStory,
  type ApprovalStorySource,
  cutWithNote,
  type NamedPath,
  STORY_NAMED_PATHS,
  STORY_PAGE_STEPS,
  type StoryStep,
  summariseArgs,
} from "./approval-story.js";
export { ChatWebhookNotifier } from "./chat-webhook-notifier.js";
export { createNotifiers } from "./create-notifiers.js";
export { DigestStore } from "./digest-store.js";
export { EmailNotifier } from "./email-notifier.js";
export { ApprovalNotifications, type EscalationAuditPort } from "./notifications.js";
export { type ApprovalNotifier, LogNotifier } from "./notifier.js";
export { isBarredOwner } from "./owner-notice.js";
export { DEFAULT_SEND_LEASE_MS, SendLease, type SendLeaseStore } from "./send-lease.js";
export { TerminalNotifier } from "./terminal-notifier.js";
