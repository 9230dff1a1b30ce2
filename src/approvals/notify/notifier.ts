import type { Logger } from "../../logging/index.js";
import type { ApprovalRecord, Approver } from "../store/index.js";
import type { MessageContent, MessageKind } from "./approval-message.js";
import type { ApprovalStory } from "./approval-story.js";

/** One request of a digest message, with the addressee's link to it (null for per-request notifiers). */
export interface DigestItem {
  record: ApprovalRecord;
  link: string | null;
}

/** One message handed to a notifier. */
export interface NotificationMessage {
  kind: MessageKind;
  /** The request (for a digest: its first request; `digest` lists them all). */
  record: ApprovalRecord;
  /** Kind `digest` only: every request the message lists, each with its own link. */
  digest?: readonly DigestItem[];
  /** The addressee (per-approver notifiers), or null (per-request notifiers). */
  approver: Approver | null;
  /** The approver's personal link, or null for per-request notifiers (links are never broadcast). */
  link: string | null;
  /** The run's story as read for this message, or null. */
  story?: ApprovalStory | null;
  content: MessageContent;
}

/** Whom a notifier sends to: each approver it reaches (with their link), or once per request. */
export const NOTIFIER_SCOPES = ["per_approver", "per_request"] as const;
export type NotifierScope = (typeof NOTIFIER_SCOPES)[number];

/**
 * A way to tell people about a request. `per_approver` notifiers get one message per approver they
 * can reach, with that approver's personal link; `per_request` notifiers get one message per request
 * without any link (a link is a capability and must reach only its approver).
 */
export interface ApprovalNotifier {
  /** Names the delivery targets ("email" → "email:alice"); unique among the notifiers in use. */
  readonly name: string;
  readonly scope: NotifierScope;
  /**
   * true: a target still failing after its retries waits out a growing back-off before a later
   * sweep tries it again (a webhook: one broken endpoint should not be posted to every 30 s).
   * Unset (email, the log): tried by every sweep, since their failure is the mail server's and the
   * mail must go out as soon as it is back.
   */
  readonly backsOff?: boolean;
  /**
   * true: every message it sends must carry the addressee's link (a personal chat webhook), so a
   * person who gets no link — the run's owner barred by `forbid_self_approval` — is not sent one
   * there (they are told by mail). Unset: the notifier can send the owner's notice without a link.
   */
  readonly needsLink?: boolean;
  /** Whether this notifier can reach the approver (email needs an address). */
  reaches(approver: Approver): boolean;
  /** Sends one message; throws on failure (the caller retries with backoff). */
  send(message: NotificationMessage): Promise<void>;
}

/**
 * Development notifier used when no SMTP host is configured: writes each mail, link included, to
 * the log. The link goes into the message text on purpose: the logger redacts `link` fields, and here
 * the log is the only way the operator gets the link.
 */
export class LogNotifier implements ApprovalNotifier {
  readonly name = "log";
  readonly scope = "per_approver";
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  reaches(): boolean {
    return true;
  }

  async send(message: NotificationMessage): Promise<void> {
    this.#logger.warn(
      {
        approvalId: message.record.id,
        traceId: message.record.traceId,
        executionId: message.record.runId,
        jobId: message.record.jobId,
        approver: message.approver?.id ?? null,
        kind: message.kind,
      },
      `approval mail (no SMTP host configured, so it is logged instead)\nTo: ${message.approver?.id ?? "-"}\nSubject: ${message.content.subject}\n\n${message.content.text}`,
    );
  }
}

/** What `ApprovalNotifications.retryUnsent` did with one request. */
export interface RetryOutcome {
  id: string;
  ok: boolean;
  error?: string;
  /** Another sender held the request's send lease, so this sweep left it alone. */
  inProgress?: true;
  /** The request waits for its digest (sent by the same sweep once the window closed). */
  digested?: true;
}

/** A notifier's message for one request can be delivered to one target (and approver). */
export interface Delivery {
  target: string;
  notifier: ApprovalNotifier;
  approver: Approver | null;
}
