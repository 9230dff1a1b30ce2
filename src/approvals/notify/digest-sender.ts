import type { Logger } from "../../logging/index.js";
import { isRunnerError, RunnerError } from "../../shared/index.js";
import { type ApprovalRecord, type ApprovalStore, effectiveStatus } from "../store/index.js";
import { approvalLink } from "./approval-message.js";
import { composeDigest } from "./digest-message.js";
import type { DigestStore } from "./digest-store.js";
import { linkSlots } from "./link-slots.js";
import type { Delivery, DigestItem, RetryOutcome } from "./notifier.js";
import { isBarredOwner } from "./owner-notice.js";
import { type RetryOptions, withRetry } from "./retry.js";
import { DEFAULT_SEND_LEASE_MS, SendLease } from "./send-lease.js";

/** What {@link DigestSender} needs from the notifications it belongs to. */
export interface DigestSenderOptions {
  store: ApprovalStore;
  digests: DigestStore;
  publicUrl: string;
  logger: Logger;
  retry?: RetryOptions;
  sendLeaseMs?: number;
  /** Every target a request's message goes to (the notifications' own list). */
  deliveries(record: ApprovalRecord): Delivery[];
}

/**
 * Sends the digests whose window closed: per target one message listing every request of the
 * digest not yet delivered there, each with the addressee's own link. It goes through the same
 * outbox as single messages: each request's send lease is held while its links are issued and
 * sent, delivered targets are marked per request, a request is marked notified when every target
 * was reached, and a failed target is tried again by the next sweep (the digest stays due).
 */
export class DigestSender {
  readonly #options: DigestSenderOptions;

  constructor(options: DigestSenderOptions) {
    this.#options = options;
  }

  /** Sends every due digest (claimed for the send lease, so two sweeps do not both send one). */
  async sendDue(limit = 100): Promise<RetryOutcome[]> {
    const { store, digests } = this.#options;
    const outcomes: RetryOutcome[] = [];
    const due = await digests.claimDue(store.clock.now(), this.#leaseMs, limit);
    for (const digest of due) outcomes.push(...(await this.#sendOne(digest)));
    return outcomes;
  }

  get #leaseMs(): number {
    return this.#options.sendLeaseMs ?? DEFAULT_SEND_LEASE_MS;
  }

  async #sendOne(digest: string): Promise<RetryOutcome[]> {
    const { store, digests, logger } = this.#options;
    const outcomes: RetryOutcome[] = [];
    const held: { record: ApprovalRecord; lease: SendLease }[] = [];
    const finished: string[] = [];
    try {
      const now = store.clock.now();
      for (const id of await digests.members(digest)) {
        const lease = await SendLease.claim(store, id, this.#leaseMs);
        if (lease === null) {
          outcomes.push({ id, ok: true, inProgress: true });
          continue;
        }
        let record: ApprovalRecord | null;
        try {
          record = await store.get(id);
        } catch (err) {
          // A damaged request cannot be sent (nor decided): the digest goes out with the others.
          if (!isRunnerError(err, "APPROVAL_CORRUPT")) throw err;
          outcomes.push({ id, ok: false, error: err.message });
          finished.push(id);
          await lease.release();
          continue;
        }
        if (record === null || record.notifiedAt !== null || effectiveStatus(record, now) !== "pending") {
          finished.push(id);
          await lease.release();
          continue;
        }
        held.push({ record, lease });
      }
      held.sort(
        (a, b) => a.record.requestedAt - b.record.requestedAt || a.record.id.localeCompare(b.record.id),
      );
      const gone = new Set<string>();
      const links = await this.#links(held, gone);
      const failed = new Map<string, string>();
      for (const { delivery, records } of this.#byTarget(held)) {
        const live = records.filter((r) => !gone.has(r.id));
        if (live.length === 0) continue;
        const items: DigestItem[] = live.map((record) => ({
          record,
          link: delivery.approver ? (links.get(`${record.id}\n${delivery.target}`) ?? null) : null,
        }));
        const message = {
          kind: "digest" as const,
          record: live[0]!,
          approver: delivery.approver,
          link: items[0]!.link,
          digest: items,
          story: null,
          content: composeDigest(items),
        };
        try {
          await withRetry(
            async () => {
              if (held.some((h) => !h.lease.held)) throw leaseLost(digest);
              await delivery.notifier.send(message);
            },
            {
              ...this.#options.retry,
              giveUp: (err) => err instanceof RunnerError && err.data.leaseLost === true,
            },
          );
          for (const record of live) await store.markDelivered(record.id, delivery.target);
        } catch (err) {
          const why = `${delivery.target}: ${(err as Error)?.message ?? String(err)}`;
          for (const record of live) failed.set(record.id, why);
          logger.warn(
            { err: why, digest },
            "approval digest not sent to one target; the next sweep tries again",
          );
        }
      }
      for (const { record } of held) {
        if (gone.has(record.id)) {
          finished.push(record.id);
        } else if (failed.has(record.id)) {
          outcomes.push({ id: record.id, ok: false, error: failed.get(record.id)! });
        } else {
          await store.markNotified(record.id);
          finished.push(record.id);
          outcomes.push({ id: record.id, ok: true, digested: true });
        }
      }
      await digests.remove(digest, finished);
    } finally {
      for (const { lease } of held) await lease.release();
    }
    return outcomes;
  }

  /** Targets not yet reached, each with the requests it still needs. */
  #byTarget(held: readonly { record: ApprovalRecord }[]) {
    const byTarget = new Map<string, { delivery: Delivery; records: ApprovalRecord[] }>();
    for (const { record } of held) {
      for (const delivery of this.#options.deliveries(record)) {
        if (record.deliveredTo.includes(delivery.target)) continue;
        const entry = byTarget.get(delivery.target) ?? { delivery, records: [] };
        entry.records.push(record);
        byTarget.set(delivery.target, entry);
      }
    }
    return byTarget.values();
  }

  /**
   * One fresh link per request, approver and token slot with a target still to reach (keyed by
   * request and target; slots as `linkSlots`: a re-send never replaces a link that reached the
   * person); `gone` gets requests no longer pending.
   */
  async #links(
    held: readonly { record: ApprovalRecord; lease: SendLease }[],
    gone: Set<string>,
  ): Promise<Map<string, string>> {
    const links = new Map<string, string>();
    for (const { record, lease } of held) {
      const all = this.#options.deliveries(record);
      const pending = all.filter((d) => !record.deliveredTo.includes(d.target));
      const issued = new Map<string, string>();
      for (const [target, { approver, slot }] of linkSlots(record, all, pending)) {
        // The run's owner where self-approval is forbidden gets no link: it could decide nothing.
        if (isBarredOwner(record, { id: approver, email: null })) continue;
        const key = `${approver}\n${slot}`;
        let link = issued.get(key);
        if (link === undefined) {
          if (!lease.held) throw leaseLost(record.id);
          const token = await this.#options.store.issueToken(record.id, approver, slot);
          if (token === null) {
            gone.add(record.id);
            break;
          }
          link = approvalLink(this.#options.publicUrl, record.id, token);
          issued.set(key, link);
        }
        links.set(`${record.id}\n${target}`, link);
      }
    }
    return links;
  }
}

function leaseLost(what: string): RunnerError {
  return new RunnerError(
    "APPROVAL_NOTIFY_FAILED",
    `approval digest ${what}: a send lease ran out (this process stalled or Redis did not answer); another sender may be sending, so this one stopped`,
    { data: { leaseLost: true } },
  );
}
