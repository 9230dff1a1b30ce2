/**
 * Formats of approvers' chat webhooks (`approvers[].chat_webhooks[].format`): a Slack incoming
 * webhook (Block Kit), a Microsoft Teams webhook (Adaptive Card), or generic JSON. Here because both
 * the config schema and the approvals notifiers name them, and neither may import the other.
 */
export const CHAT_WEBHOOK_FORMATS = ["slack", "teams", "json"] as const;
export type ChatWebhookFormat = (typeof CHAT_WEBHOOK_FORMATS)[number];
