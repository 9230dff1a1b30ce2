import type { Logger } from "../../logging/index.js";
import { EmailNotifier, type SmtpSettings } from "./email-notifier.js";
import { type ApprovalNotifier, LogNotifier } from "./notifier.js";
import { WebhookNotifier, type WebhookSettings } from "./webhook-notifier.js";

/** Options for {@link createNotifiers}. */
export interface CreateNotifiersOptions {
  /** `smtp.*`; an empty host (or null) means development mode: mails go to the log. */
  smtp: SmtpSettings | null;
  /** A webhook to POST every request to, or null / an empty url for none. */
  webhook?: WebhookSettings | null;
  logger: Logger;
}

/**
 * The notifiers a process uses: email when an SMTP host is set, otherwise the log notifier (and a
 * warning saying so), plus the webhook when one is configured.
 */
export function createNotifiers(options: CreateNotifiersOptions): ApprovalNotifier[] {
  const notifiers: ApprovalNotifier[] = [];
  if (options.smtp && options.smtp.host.length > 0) {
    notifiers.push(new EmailNotifier(options.smtp));
  } else {
    options.logger.warn(
      "smtp.host is not set: approval mails and their links are written to this log instead",
    );
    notifiers.push(new LogNotifier(options.logger));
  }
  if (options.webhook && options.webhook.url.length > 0) notifiers.push(new WebhookNotifier(options.webhook));
  return notifiers;
}
