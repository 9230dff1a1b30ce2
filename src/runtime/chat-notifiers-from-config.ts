import { type ApprovalNotifier, ChatWebhookNotifier } from "../approvals/index.js";
import { type EchoRunnerConfig, resolveSecret } from "../config/index.js";
import type { ChatWebhookFormat, DeepReadonly } from "../shared/index.js";

/**
 * The approvers' chat webhooks as notifiers. A channel webhook (`slack_webhook_env`, or
 * `chat_webhooks` without `personal`) is one per-request notifier however many approvers list it,
 * and carries no link token: its button opens `/admin` when the dashboard is served (an API token
 * is set), else it says to use the mailed link. A personal webhook reaches only its approver, with
 * their link. A URL variable that is not set is a start-up error (CONFIG_SECRET_MISSING).
 */
export function chatNotifiersFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
): ApprovalNotifier[] {
  const adminUrl = env[config.http.api_token_env]
    ? `${config.http.public_url.replace(/\/+$/, "")}/admin`
    : null;
  const notifiers = new Map<string, ApprovalNotifier>();
  for (const approver of config.approvers) {
    const hooks: { format: ChatWebhookFormat; url_env: string; personal: boolean }[] = [
      ...(approver.slack_webhook_env
        ? [{ format: "slack" as const, url_env: approver.slack_webhook_env, personal: false }]
        : []),
      ...(approver.chat_webhooks ?? []).map((h) => ({ ...h, personal: h.personal === true })),
    ];
    for (const hook of hooks) {
      const name = `${hook.format}${hook.personal ? "-personal" : ""}:${hook.url_env}`;
      if (notifiers.has(name)) continue;
      const url = resolveSecret(hook.url_env, env, `the ${hook.format} webhook of approver ${approver.id}`);
      notifiers.set(
        name,
        new ChatWebhookNotifier({
          name,
          format: hook.format,
          url,
          personalFor: hook.personal ? approver.id : null,
          adminUrl,
          // Buttons only when the Slack app's clicks can be verified (its signing secret is set).
          interactive: hook.format === "slack" && config.notifications.slack.signing_secret_env !== "",
        }),
      );
    }
  }
  return [...notifiers.values()];
}
