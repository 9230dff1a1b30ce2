import {
  type Approver,
  type ChatWebhookNotifier,
  DEFAULT_SEND_LEASE_MS,
  type EmailNotifier,
  SendLease,
  type SendLeaseStore,
} from "../approvals/index.js";
import type { Logger } from "../logging/index.js";
import { sameIdentity } from "../shared/index.js";
import type { Alert } from "./alert.js";
import { alertChatPayload } from "./alert-chat.js";
import { composeAlertMail } from "./alert-message.js";
import type { AlertBatch, AlertOutbox } from "./alert-outbox.js";

/** Options for {@link AlertSender}. */
export interface AlertSenderOptions {
  outbox: AlertOutbox;
  /** Where the per-group send leases live (the approval store's). */
  leases: SendLeaseStore;
  /** The approval mail's notifier (smtp.*), or null: alerts are written to the log instead. */
  email: Pick<EmailNotifier, "mail"> | null;
  /** `alerts.chat_webhooks` as the approval chat notifiers (channel webhooks, no personal link). */
  chat: readonly Pick<ChatWebhookNotifier, "name" | "format" | "post">[];
  /** `alerts.approvers` resolved to the approvers entries: they get every alert. */
  approvers: readonly Approver[];
  /** Whether a run's owner is mailed too (`alerts.owner`), and the entries owners are found in. */
  owners: { enabled: boolean; entries: readonly Approver[] };
  /** `http.public_url`: each alert links to its run's /admin page. */
  publicUrl: string;
  logger: Logger;
  /** A failed target is tried again after this, ms. Default 30 000. */
  retryMs?: number;
  /** Send lease per group, ms. Default {@link DEFAULT_SEND_LEASE_MS}. */
  leaseMs?: number;
}

/** One place a batch goes, and what of it. */
interface Target {
  name: string;
  alerts: Alert[];
  send(alerts: Alert[]): Promise<void>;
}

/** What one {@link AlertSender.sweep} did. */
export interface AlertSweep {
  /** Groups whose message went to every target. */
  sent: number;
  /** Groups with a failed target (tried again later). */
  failed: number;
}

/**
 * Sends due alert groups from the outbox: per group one message per target (a mail per person, a
 * post per chat webhook) holding every alert the group gathered, one alone or a digest. Each group
 * is sent under its send lease (two processes never send one group), each target is marked as it
 * succeeds (a crash re-sends only the rest), and the batch leaves the outbox only when all have it.
 */
export class AlertSender {
  readonly #o: AlertSenderOptions;

  constructor(options: AlertSenderOptions) {
    this.#o = options;
  }

  /** Sends every group that is due now. */
  async sweep(): Promise<AlertSweep> {
    const result: AlertSweep = { sent: 0, failed: 0 };
    for (const gid of await this.#o.outbox.dueGroups()) {
      const lease = await SendLease.claim(
        this.#o.leases,
        `alert-${gid}`,
        this.#o.leaseMs ?? DEFAULT_SEND_LEASE_MS,
      );
      if (lease === null) continue;
      try {
        const batch = await this.#o.outbox.take(gid);
        if (batch === null) continue;
        const ok = await this.#sendBatch(batch, lease);
        if (ok) {
          await this.#o.outbox.finish(gid);
          result.sent++;
        } else {
          await this.#o.outbox.retryLater(gid, this.#o.retryMs ?? 30_000);
          result.failed++;
        }
      } finally {
        await lease.release();
      }
    }
    return result;
  }

  async #sendBatch(batch: AlertBatch, lease: SendLease): Promise<boolean> {
    let ok = true;
    for (const target of this.#targets(batch.alerts)) {
      if (batch.delivered.has(target.name)) continue;
      if (!lease.held) return false;
      try {
        await target.send(target.alerts);
        await this.#o.outbox.delivered(batch.gid, target.name);
      } catch (err) {
        ok = false;
        // The error names the target, never its address or URL (a webhook URL is a secret).
        this.#o.logger.warn(
          { target: target.name, alerts: target.alerts.length, err: (err as Error).message },
          "alert not delivered; tried again later",
        );
      }
    }
    return ok;
  }

  /** Who gets what: listed approvers every alert, an owner their own runs' alerts, chat everything. */
  #targets(alerts: Alert[]): Target[] {
    const { publicUrl, email, logger } = this.#o;
    const people = new Map<string, { person: Approver; alerts: Alert[] }>();
    const add = (person: Approver, alert: Alert) => {
      const entry = people.get(person.id) ?? { person, alerts: [] };
      if (!entry.alerts.includes(alert)) entry.alerts.push(alert);
      people.set(person.id, entry);
    };
    for (const alert of alerts) {
      for (const person of this.#o.approvers) add(person, alert);
      if (this.#o.owners.enabled && alert.owner !== null) {
        const owner = this.#o.owners.entries.find((a) => sameIdentity(a.id, alert.owner ?? ""));
        if (owner) add(owner, alert);
      }
    }
    const targets: Target[] = [];
    for (const { person, alerts: theirs } of people.values()) {
      if (!person.email) continue;
      const to = person.email;
      targets.push({
        name: `email:${person.id}`,
        alerts: theirs,
        send: async (list) => {
          const content = composeAlertMail(list, publicUrl);
          if (email === null) {
            logger.warn(
              { to: person.id, alerts: list.length },
              `alert mail (no SMTP host configured, so it is logged instead)\nSubject: ${content.subject}\n\n${content.text}`,
            );
            return;
          }
          await email.mail(to, content, { "X-Echo-Runner-Alert": list[0]!.id.slice(0, 200) });
        },
      });
    }
    for (const hook of this.#o.chat) {
      targets.push({
        name: `chat:${hook.name}`,
        alerts,
        send: (list) => hook.post(alertChatPayload(hook.format, list, publicUrl)),
      });
    }
    return targets;
  }
}
