import type { Logger } from "../../logging/index.js";
import { RunnerError } from "../../shared/index.js";
import type { ApprovalRecord, ApprovalStore } from "../store/index.js";
import { approvalLink, composeMessage, type MessageKind } from "./approval-message.js";
import type { ApprovalStorySource } from "./approval-story.js";
import { linkSlots } from "./link-slots.js";
import type { ApprovalNotifier, Delivery } from "./notifier.js";
import { composeOwnerNotice, isBarredOwner } from "./owner-notice.js";
import { type RetryOptions, withRetry } from "./retry.js";
import type { SendLease } from "./send-lease.js";

/** Options for {@link MessageSender}. */
export interface MessageSenderOptions {
  store: ApprovalStore;
  notifiers: readonly ApprovalNotifier[];
  /** `http.public_url`: the base of approval links. */
  publicUrl: string;
  logger: Logger;
  retry?: RetryOptions;
  /** Reads the run's story when a message is composed; omitted or failing: the call alone. */
  story?: ApprovalStorySource;
}

/** What one {@link MessageSender.send} reached and what failed (target, error). */
export type SendResult = { delivered: string[]; failed: [string, unknown][] } | "not_pending";

/**
 * Who a request's message goes to, and sending it: one delivery per per-request notifier and per
 * (notifier, approver it reaches), links issued per approver and slot, each send retried, each
 * reached target marked delivered.
 */
export class MessageSender {
  readonly #options: MessageSenderOptions;

  constructor(options: MessageSenderOptions) {
    this.#options = options;
  }

  /** The deliveries of `record`'s message; `prefix` names the message's targets ("reminder:", ...). */
  deliveries(record: ApprovalRecord, prefix: string): Delivery[] {
    const deliveries: Delivery[] = [];
    for (const notifier of this.#options.notifiers) {
      if (notifier.scope === "per_request") {
        deliveries.push({ target: `${prefix}${notifier.name}`, notifier, approver: null });
        continue;
      }
      for (const approver of record.approvers) {
        // Someone taken off today's approvers list since the request was made gets nothing: no
        // link (it would decide nothing) and no word of the call.
        if (this.#options.store.findApprover(approver.id) === null) continue;
        // The barred owner is told once who decides; a reminder is for those who can act.
        if (prefix === "reminder:" && isBarredOwner(record, approver)) continue;
        // They get no link, so nothing that only sends links (a personal chat webhook would fail on
        // every try and keep the request unsent for everyone).
        if (notifier.needsLink && isBarredOwner(record, approver)) continue;
        if (notifier.reaches(approver)) {
          deliveries.push({ target: `${prefix}${notifier.name}:${approver.id}`, notifier, approver });
        }
      }
    }
    return deliveries;
  }

  /**
   * Sends `deliveries` (the part of `all`, this message's every delivery, not reached yet). Links
   * come from {@link linkSlots}: a re-send after some of a person's targets were reached never
   * replaces the link they have.
   */
  async send(
    kind: MessageKind,
    record: ApprovalRecord,
    all: readonly Delivery[],
    deliveries: readonly Delivery[],
    lease: SendLease | null = null,
  ): Promise<SendResult> {
    const { store, publicUrl, retry } = this.#options;
    // A lost lease may belong to another sender now: a new token would kill its link, a send
    // would be the second mail. Stop, and let the holder (or a later sweep) finish.
    const leaseLost = () =>
      new RunnerError(
        "APPROVAL_NOTIFY_FAILED",
        `approval ${record.id}: the send lease ran out (this process stalled or Redis did not answer); another sender may be mailing it, so this one stopped`,
        { data: { id: record.id, leaseLost: true } },
      );
    const isLeaseLost = (err: unknown) => err instanceof RunnerError && err.data.leaseLost === true;
    // One token per approver and slot, shared by that approver's deliveries in the slot.
    const issued = new Map<string, string>();
    const links = new Map<string, string>();
    for (const [target, { approver, slot }] of linkSlots(record, all, deliveries)) {
      if (isBarredOwner(record, { id: approver, email: null })) continue; // no link: they cannot decide
      const key = `${approver}\n${slot}`;
      let link = issued.get(key);
      if (link === undefined) {
        if (lease !== null && !lease.held) throw leaseLost();
        const token = await store.issueToken(record.id, approver, slot);
        if (token === null) return "not_pending";
        link = approvalLink(publicUrl, record.id, token);
        issued.set(key, link);
      }
      links.set(target, link);
    }
    const delivered: string[] = [];
    const failed: [string, unknown][] = [];
    const story = deliveries.length > 0 ? await this.#story(record) : null;
    for (const delivery of deliveries) {
      const link = delivery.approver ? (links.get(delivery.target) ?? null) : null;
      const message = {
        kind,
        record,
        approver: delivery.approver,
        link,
        story,
        content:
          delivery.approver && isBarredOwner(record, delivery.approver)
            ? composeOwnerNotice(kind, record)
            : composeMessage(kind, record, link, story),
      };
      try {
        await withRetry(
          async () => {
            if (lease !== null && !lease.held) throw leaseLost();
            await delivery.notifier.send(message);
          },
          { ...retry, giveUp: isLeaseLost },
        );
        await store.markDelivered(record.id, delivery.target);
        delivered.push(delivery.target);
      } catch (err) {
        failed.push([delivery.target, err]);
      }
    }
    return { delivered, failed };
  }

  /** The run's story for one message, or null (none configured, or it could not be read). */
  async #story(record: ApprovalRecord) {
    if (!this.#options.story) return null;
    try {
      return await this.#options.story.read(record);
    } catch (err) {
      this.#options.logger.warn(
        { err: (err as Error).message, approvalId: record.id },
        "the run's story could not be read; the message carries the call alone",
      );
      return null;
    }
  }
}

/** The APPROVAL_NOTIFY_FAILED error naming every target that failed and why. */
export function notifyFailure(id: string, failed: readonly [string, unknown][]): RunnerError {
  const detail = failed
    .map(([target, err]) => `${target}: ${(err as Error)?.message ?? String(err)}`)
    .join("; ");
  return new RunnerError(
    "APPROVAL_NOTIFY_FAILED",
    `approval ${id}: could not notify ${detail}; the request stays pending and will be sent again`,
    { data: { id, targets: failed.map(([target]) => target) } },
  );
}
