import type { z } from "zod";
import { webhookTargetProblem } from "./webhook-targets.js";

/** The part of the config the webhook checks read. */
export interface WebhookCheckInput {
  approvers: readonly {
    id: string;
    slack_webhook_env?: string | undefined;
    chat_webhooks?: readonly { url_env: string; personal?: boolean | undefined }[] | undefined;
  }[];
  tools: { messaging: { webhooks: Readonly<Record<string, { url: string }>> } };
  notifications: { allow_internal_webhooks: readonly string[] };
  /** `alerts.chat_webhooks`: channel webhooks whose URLs live in environment variables. */
  alerts?: { chat_webhooks: readonly { url_env: string }[] } | undefined;
}

/**
 * The webhook URLs written in config (`tools.messaging.webhooks`, which message and notify POST to):
 * never to an internal address unless `notifications.allow_internal_webhooks` lists it. They carry
 * no approval links, so plain http is theirs to choose.
 */
export function checkConfigWebhooks(input: WebhookCheckInput, ctx: z.RefinementCtx): void {
  const allow = input.notifications.allow_internal_webhooks;
  for (const [name, hook] of Object.entries(input.tools.messaging.webhooks)) {
    const problem = webhookTargetProblem(hook.url, { carriesLinks: false, allow });
    if (problem)
      ctx.addIssue({
        code: "custom",
        path: ["tools", "messaging", "webhooks", name, "url"],
        message: problem,
      });
  }
}
