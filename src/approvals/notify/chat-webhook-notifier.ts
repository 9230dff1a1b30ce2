import { type ChatWebhookFormat, RunnerError } from "../../shared/index.js";
import type { Approver } from "../store/index.js";
import { type ChatItem, chatPayload } from "./chat-payloads.js";
import type { ApprovalNotifier, NotificationMessage, NotifierScope } from "./notifier.js";

/** Options for {@link ChatWebhookNotifier}. */
export interface ChatWebhookSettings {
  /** Names the delivery targets; unique among the notifiers in use ("slack:OPS_SLACK_URL"). */
  name: string;
  format: ChatWebhookFormat;
  /** The incoming-webhook URL (a secret: it is the capability to post). */
  url: string;
  /**
   * The one approver whose personal link this webhook may carry, or null for a channel webhook:
   * read by many, so it carries no token, only a button to `adminUrl` or a word to use the mail.
   */
  personalFor: string | null;
  /** `<public url>/admin` when the dashboard is served (an API token is set), else null. */
  adminUrl: string | null;
  /**
   * Slack only: add Approve / Deny buttons (the Slack app's interactivity is set up, so clicks reach
   * `POST /slack/interactions`). Default false.
   */
  interactive?: boolean;
  /** Request timeout, ms. Default 10 000. */
  timeoutMs?: number;
}

/**
 * Posts approval messages to a chat incoming webhook (Slack Block Kit, a Teams Adaptive Card, or
 * generic JSON). A channel webhook is `per_request` and never sees a link token; a personal one is
 * `per_approver`, reaches only its approver and carries that approver's link (the decision still
 * happens on the page). A non-2xx answer is a failure, retried by the caller.
 */
export class ChatWebhookNotifier implements ApprovalNotifier {
  readonly name: string;
  readonly scope: NotifierScope;
  readonly backsOff = true;
  readonly needsLink: boolean;
  readonly #settings: ChatWebhookSettings;

  constructor(settings: ChatWebhookSettings) {
    let url: URL;
    try {
      url = new URL(settings.url);
    } catch {
      throw new RunnerError("APPROVAL_INPUT_INVALID", `chat webhook ${settings.name}: the url is not a URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new RunnerError(
        "APPROVAL_INPUT_INVALID",
        `chat webhook ${settings.name}: the url must be http or https, got ${url.protocol}`,
      );
    }
    this.name = settings.name;
    this.scope = settings.personalFor === null ? "per_request" : "per_approver";
    this.needsLink = settings.personalFor !== null;
    this.#settings = settings;
  }

  reaches(approver: Approver): boolean {
    return this.#settings.personalFor === approver.id;
  }

  async send(message: NotificationMessage): Promise<void> {
    const personal = this.#settings.personalFor !== null;
    const list = message.kind === "digest" && message.digest ? message.digest : [message];
    const items: ChatItem[] = list.map((item) => ({
      record: item.record,
      url: personal ? item.link : this.#channelUrl(item.record.id),
      task: item.record.id === message.record.id ? (message.story?.task ?? null) : null,
    }));
    if (personal && items.some((i) => i.url === null)) {
      throw new RunnerError(
        "INTERNAL",
        `chat webhook ${this.name} was handed a personal message without a link`,
      );
    }
    await this.post(
      chatPayload(this.#settings.format, {
        kind: message.kind,
        items,
        personal,
        interactive: this.#settings.interactive === true,
      }),
    );
  }

  /** The service this webhook posts to: the body `post` takes must be in its format. */
  get format(): ChatWebhookFormat {
    return this.#settings.format;
  }

  /**
   * POSTs one body (approval messages and alerts share it): no redirects followed, a timeout, and
   * a non-2xx answer thrown (the URL is a secret: it is never in the error).
   */
  async post(body: Record<string, unknown>): Promise<void> {
    const response = await fetch(this.#settings.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.#settings.timeoutMs ?? 10_000),
      redirect: "error",
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`chat webhook ${this.name} answered HTTP ${response.status}`);
  }

  #channelUrl(id: string): string | null {
    const admin = this.#settings.adminUrl;
    return admin === null ? null : `${admin.replace(/\/+$/, "")}#approval-${encodeURIComponent(id)}`;
  }
}
