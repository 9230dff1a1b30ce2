import type { Logger } from "../../logging/index.js";
import { isRunnerError, RunnerError, sameIdentity } from "../../shared/index.js";
import { type ApprovalRecord, type ApprovalStore, effectiveStatus } from "../store/index.js";
import type { ApprovalStorySource } from "./approval-story.js";
import { DigestSender } from "./digest-sender.js";
import { DigestStore } from "./digest-store.js";
import { EscalationMarks } from "./escalation-marks.js";
import { MessageSender, notifyFailure } from "./message-sender.js";
import type { ApprovalNotifier, RetryOutcome } from "./notifier.js";
import { isBarredOwner } from "./owner-notice.js";
import type { RetryOptions } from "./retry.js";
import { DEFAULT_SEND_LEASE_MS, SendLease } from "./send-lease.js";

/** Options for {@link ApprovalNotifications}. */
export interface ApprovalNotificationsOptions {
  store: ApprovalStore;
  /** Email (or the log notifier when no SMTP host is set), and optionally a webhook. */
  notifiers: readonly ApprovalNotifier[];
  /** `http.public_url`: the base of approval links. */
  publicUrl: string;
  logger: Logger;
  retry?: RetryOptions;
  /** How long a sender holds a request's send lease without renewing it, ms. Default 30 s. */
  sendLeaseMs?: number;
  /** How long a claimed reminder waits before another try after a failure, ms. Default 5 minutes. */
  reminderLeaseMs?: number;
  /**
   * Back-off of a webhook target whose send failed (after its retries; notifiers with `backsOff`):
   * the next sweep that may try it again waits `baseMs` after the first failure, doubling per
   * failure up to `maxMs`. Default 1 and 30 minutes. Without it a failing webhook was posted to by
   * every sweep (24 posts in 70 s).
   */
  targetBackoff?: { baseMs: number; maxMs: number };
  /**
   * Reads the run's story (task, the agent's words, earlier steps) when a message is composed; it
   * is never stored with the request. Omitted, or failing: the message carries the call alone.
   */
  story?: ApprovalStorySource;
  /**
   * `notifications.digest_window_seconds` in ms: when one run or schedule produces several pending
   * requests within this window, the first is sent at once and the rest go out as one digest when
   * the window closes (sent by {@link retryUnsent}). 0 (the default here) sends each at once.
   */
  digestWindowMs?: number;
  /**
   * `permissions.approval.escalate_after_minutes` / `escalate_to`: a request still pending
   * `afterMs` after it was made is sent once to the `to` approvers by {@link escalateDue}, and
   * `audit` records it. Omitted: no escalation.
   */
  escalation?: { afterMs: number; to: readonly string[]; audit?: EscalationAuditPort; leaseMs?: number };
}

/** Where escalations are recorded: the audit trail (runtime wires it; approvals may not import journal). */
export interface EscalationAuditPort {
  escalated(record: ApprovalRecord, to: readonly string[], afterMs: number): Promise<void>;
}

export type { RetryOutcome } from "./notifier.js";

/** What {@link ApprovalNotifications.notify} did. */
export interface NotifyOutcome {
  /**
   * `in_progress`: another sender holds the request's send lease; it (or a later sweep) sends.
   * `digested`: another request of the same run or schedule opened the digest window; this one
   * goes out in the digest when the window closes.
   */
  status: "sent" | "already_sent" | "not_pending" | "in_progress" | "digested";
  /** Targets reached by this call ("email:alice", "webhook", ...). */
  delivered: string[];
}

/** Keeps digest index keys a day past the request's deadline (then they expire on their own). */
const DIGEST_KEY_GRACE_MS = 86_400_000;

/**
 * Sends approval notifications exactly once per target and never loses a request: each target is
 * marked delivered after it succeeded, the request is marked notified only when every target was
 * reached, and until then it stays in the unsent index for {@link retryUnsent}. Sends are retried
 * with backoff. Links carry a fresh token per approver (one live token per approver).
 */
export class ApprovalNotifications {
  readonly #options: ApprovalNotificationsOptions;
  readonly #digests: DigestStore;
  readonly #digestSender: DigestSender;
  readonly #escalations: EscalationMarks;
  readonly #sender: MessageSender;

  constructor(options: ApprovalNotificationsOptions) {
    const names = options.notifiers.map((n) => n.name);
    if (new Set(names).size !== names.length) {
      throw new RunnerError(
        "APPROVAL_INPUT_INVALID",
        `notifier names must be unique, got ${names.join(", ")}`,
      );
    }
    if (!/^https?:\/\//.test(options.publicUrl)) {
      throw new RunnerError("APPROVAL_INPUT_INVALID", `public url must be http(s), got ${options.publicUrl}`);
    }
    const windowMs = options.digestWindowMs ?? 0;
    if (!Number.isSafeInteger(windowMs) || windowMs < 0) {
      throw new RunnerError(
        "APPROVAL_INPUT_INVALID",
        `digest window must be a whole number of ms >= 0, got ${windowMs}`,
      );
    }
    const backoff = options.targetBackoff;
    if (
      backoff !== undefined &&
      !(Number.isSafeInteger(backoff.baseMs) && backoff.baseMs > 0 && backoff.maxMs >= backoff.baseMs)
    ) {
      throw new RunnerError(
        "APPROVAL_INPUT_INVALID",
        `target back-off needs a positive whole baseMs and maxMs >= baseMs, got ${JSON.stringify(backoff)}`,
      );
    }
    this.#options = options;
    this.#sender = new MessageSender(options);
    this.#digests = new DigestStore(options.store.redis, options.store.keys);
    this.#escalations = new EscalationMarks(options.store.redis, options.store.keys);
    this.#digestSender = new DigestSender({
      ...options,
      digests: this.#digests,
      deliveries: (record) => this.#sender.deliveries(record, ""),
    });
  }

  /**
   * Phase 1's notification: sends the request to every target not yet reached. Call it right after
   * `register` (also when `created` is false: a crash may have come before the mail). Throws
   * APPROVAL_NOTIFY_FAILED when a target still fails after the retries; the request stays pending
   * and unsent, and a later call (or {@link retryUnsent}) sends only what is missing.
   */
  async notify(id: string): Promise<NotifyOutcome> {
    const lease = await SendLease.claim(
      this.#options.store,
      id,
      this.#options.sendLeaseMs ?? DEFAULT_SEND_LEASE_MS,
    );
    if (lease === null) return { status: "in_progress", delivered: [] };
    try {
      return await this.#notifyHeld(id, lease);
    } finally {
      await lease.release();
    }
  }

  /** {@link notify} with the send lease held: reads the request only now, after a holder finished. */
  async #notifyHeld(id: string, lease: SendLease): Promise<NotifyOutcome> {
    const record = await this.#options.store.require(id);
    if (record.notifiedAt !== null) return { status: "already_sent", delivered: [] };
    const now = this.#options.store.clock.now();
    if (effectiveStatus(record, now) !== "pending") {
      return { status: "not_pending", delivered: [] };
    }
    const windowMs = this.#options.digestWindowMs ?? 0;
    if (windowMs > 0) {
      const ttlMs = record.deadline - now + DIGEST_KEY_GRACE_MS;
      const joined = await this.#digests.join(record, now, windowMs, ttlMs);
      if (joined !== "!") return { status: "digested", delivered: [] };
    }
    const all = this.#sender.deliveries(record, "");
    const pending = all.filter((d) => !record.deliveredTo.includes(d.target));
    // A target that failed before waits out its back-off; the others are sent now.
    const backoff = await this.#options.store.targetBackoff(
      id,
      pending.map((d) => d.target),
    );
    const due = pending.filter((d) => (backoff.get(d.target)?.nextAt ?? 0) <= now);
    const waiting: [string, unknown][] = pending
      .filter((d) => !due.includes(d))
      .map((d) => {
        const b = backoff.get(d.target)!;
        return [
          d.target,
          new Error(`failed ${b.failures} time(s); next try after ${new Date(b.nextAt).toISOString()}`),
        ];
      });
    const result = await this.#sender.send("request", record, all, due, lease);
    if (result === "not_pending") return { status: "not_pending", delivered: [] };
    for (const [target, err] of result.failed) {
      if (err instanceof RunnerError && err.data.leaseLost === true) continue; // not the target's fault
      if (!due.find((d) => d.target === target)?.notifier.backsOff) continue;
      const failures = (backoff.get(target)?.failures ?? 0) + 1;
      await this.#options.store.markTargetFailed(id, target, now + this.#backoffMs(failures));
    }
    if (result.failed.length > 0 || waiting.length > 0) {
      throw notifyFailure(record.id, [...result.failed, ...waiting]);
    }
    await this.#options.store.markNotified(id);
    if (this.#sender.deliveries(record, "").length === 0) {
      this.#options.logger.warn(
        { approvalId: id },
        "no notifier can reach any approver: decide with `echo-runner approvals` or the JSON API",
      );
    }
    return { status: "sent", delivered: result.delivered };
  }

  /**
   * Tries again every request whose notification has not gone out; returns what happened to each.
   * A request another sender is mailing right now is skipped (`inProgress`), not sent twice.
   */
  async retryUnsent(limit = 100): Promise<RetryOutcome[]> {
    const outcomes: RetryOutcome[] = await this.#digestSender.sendDue(limit);
    const done = new Set(outcomes.map((o) => o.id));
    for (const id of await this.#options.store.unsentIds(limit)) {
      if (done.has(id)) continue;
      try {
        const outcome = await this.notify(id);
        outcomes.push(
          outcome.status === "in_progress"
            ? { id, ok: true, inProgress: true }
            : outcome.status === "digested"
              ? { id, ok: true, digested: true }
              : { id, ok: true },
        );
      } catch (err) {
        outcomes.push({ id, ok: false, error: (err as Error).message });
      }
    }
    return outcomes;
  }

  /**
   * The request, or null when it is gone or damaged (APPROVAL_CORRUPT): a damaged one is logged and
   * passed over, so one request that cannot be read does not stop the sweep for every other one. It
   * is never decided by this (it cannot be), and the views name it.
   */
  async #readOrSkip(id: string, what: "reminder" | "escalation"): Promise<ApprovalRecord | null> {
    try {
      return await this.#options.store.get(id);
    } catch (err) {
      if (!isRunnerError(err, "APPROVAL_CORRUPT")) throw err;
      this.#options.logger.warn(
        { err: err.message, approvalId: id },
        `${what} skipped: the request cannot be read`,
      );
      return null;
    }
  }

  /**
   * Sends the reminder of every request whose reminder time passed, once: a claimed reminder that
   * fails is tried again after the lease. The reminder carries a new link that replaces the first.
   * Returns the ids reminded by this call. `now` defaults to the store's clock.
   */
  async remindDue(now?: number, limit = 100): Promise<string[]> {
    const { store, logger } = this.#options;
    const reminded: string[] = [];
    for (const id of await store.claimReminders(this.#options.reminderLeaseMs ?? 300_000, limit, now)) {
      const record = await this.#readOrSkip(id, "reminder");
      if (record === null || record.remindedAt !== null) continue;
      const all = this.#sender.deliveries(record, "reminder:");
      const targets = all.filter((d) => !record.deliveredTo.includes(d.target));
      const result = await this.#sender.send("reminder", record, all, targets);
      if (result === "not_pending") continue;
      if (result.failed.length > 0) {
        logger.warn(
          { err: notifyFailure(id, result.failed).message, approvalId: id },
          "reminder not sent; will retry",
        );
        continue;
      }
      await store.markReminded(id);
      reminded.push(id);
    }
    return reminded;
  }

  /**
   * Escalates, once each, the requests still pending `escalation.afterMs` after they were made: a
   * message (with a fresh link, like a reminder's) to the `escalation.to` approvers only, then the
   * audit trail records it. Claimed with a lease first, so two sweepers send it once; a failed send
   * is tried again when the lease lapses. Returns the ids escalated by this call.
   */
  async escalateDue(now?: number, limit = 500): Promise<string[]> {
    const escalation = this.#options.escalation;
    if (escalation === undefined || escalation.afterMs <= 0 || escalation.to.length === 0) return [];
    const { store, logger } = this.#options;
    const at = now ?? store.clock.now();
    const escalated: string[] = [];
    for (const id of await this.#escalations.pendingIds(limit)) {
      const record = await this.#readOrSkip(id, "escalation");
      if (record === null || effectiveStatus(record, at) !== "pending") continue;
      if (record.requestedAt + escalation.afterMs > at) continue;
      if (!(await this.#escalations.claim(id, escalation.leaseMs ?? 300_000))) continue;
      const targets = this.#sender
        .deliveries(record, "escalation:")
        .filter(
          (d) =>
            d.approver !== null &&
            !isBarredOwner(record, d.approver) &&
            escalation.to.some((name) => sameIdentity(name, d.approver!.id)),
        );
      const result = await this.#sender.send("escalation", record, targets, targets);
      if (result === "not_pending") continue;
      if (result.failed.length > 0) {
        logger.warn(
          { err: notifyFailure(id, result.failed).message, approvalId: id },
          "escalation not sent; will retry",
        );
        continue;
      }
      await this.#escalations.markSent(id, record.deadline - at + 86_400_000);
      const reached = [...new Set(targets.map((d) => d.approver!.id))];
      if (reached.length === 0) {
        logger.warn(
          { approvalId: id },
          "escalation reaches nobody: no notifier reaches the escalate_to approvers",
        );
      }
      await escalation.audit?.escalated(record, reached, escalation.afterMs);
      escalated.push(id);
    }
    return escalated;
  }

  /** How long a target that failed `failures` times waits before the next try, ms. */
  #backoffMs(failures: number): number {
    const { baseMs, maxMs } = this.#options.targetBackoff ?? { baseMs: 60_000, maxMs: 30 * 60_000 };
    return Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 30));
  }
}
