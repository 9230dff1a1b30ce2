import { RunnerError } from "../../shared/index.js";
import { renderArgs } from "./approval-message.js";
import type { ApprovalNotifier, NotificationMessage } from "./notifier.js";

/** Options for {@link WebhookNotifier}. */
export interface WebhookSettings {
  /** http(s) URL that receives a POST of JSON per request. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string;
  /** Request timeout, ms. Default 10 000. */
  timeoutMs?: number;
}

/**
 * POSTs one JSON document per request (and per reminder) to a configured URL: what is asked, never
 * a link token. A non-2xx answer is a failure, retried by the caller.
 */
export class WebhookNotifier implements ApprovalNotifier {
  readonly name = "webhook";
  readonly scope = "per_request";
  readonly backsOff = true;
  readonly #settings: WebhookSettings;

  constructor(settings: WebhookSettings) {
    let url: URL;
    try {
      url = new URL(settings.url);
    } catch {
      throw new RunnerError(
        "APPROVAL_INPUT_INVALID",
        `webhook url is not a URL: ${JSON.stringify(settings.url)}`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new RunnerError(
        "APPROVAL_INPUT_INVALID",
        `webhook url must be http or https, got ${url.protocol}`,
      );
    }
    this.#settings = settings;
  }

  reaches(): boolean {
    return true;
  }

  async send(message: NotificationMessage): Promise<void> {
    const { record } = message;
    const body = {
      type:
        message.kind === "reminder"
          ? "approval.reminder"
          : message.kind === "digest"
            ? "approval.digest"
            : "approval.requested",
      ...(message.digest ? { requests: message.digest.map((item) => item.record.id) } : {}),
      id: record.id,
      tool: record.tool,
      risk: record.risk,
      reason: record.reason,
      flags: record.flags,
      agent: record.agent,
      runId: record.runId,
      scheduleId: record.scheduleId,
      parentRunId: record.parentRunId,
      arguments: renderArgs(record.argsCanonical),
      argsHash: record.argsHash,
      requestedAt: new Date(record.requestedAt).toISOString(),
      deadline: new Date(record.deadline).toISOString(),
      approvers: record.approvers.map((a) => a.id),
      requiredApprovals: record.requiredApprovals,
      subject: message.content.subject,
    };
    const response = await fetch(this.#settings.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(this.#settings.token ? { authorization: `Bearer ${this.#settings.token}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.#settings.timeoutMs ?? 10_000),
      redirect: "error",
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
  }
}
