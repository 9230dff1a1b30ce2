import { createHmac } from "node:crypto";
import nodemailer, { type Transporter } from "nodemailer";
import type { FetchFn } from "../provider-http.js";
import { agentMessageForPeople } from "./agent-message.js";
import type {
  MessageChannel,
  MessageKind,
  MessageSender,
  OutboundMessage,
  SentMessage,
} from "./message-port.js";

/** SMTP delivery for notify and message (the config's `smtp.*` with the password resolved). */
export interface EmailSenderOptions {
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  /** "" = no authentication. */
  readonly user: string;
  readonly password?: string;
  readonly from: string;
  /** User id → address (config `approvers`): where notify reaches a run's owner. */
  readonly addressBook: Readonly<Record<string, string>>;
  /** Connect and socket timeout, ms. Default 15,000. */
  readonly timeoutMs?: number;
}

/** Webhook delivery: named endpoints that receive a JSON POST per message. */
export interface WebhookSenderOptions {
  /**
   * Name → endpoint. With a `secret`, the body is signed: header `x-echo-runner-signature:
   * sha256=<hex HMAC-SHA256 of the body>`, so the receiver can tell the runner sent it.
   */
  readonly webhooks: Readonly<Record<string, { readonly url: string; readonly secret?: string }>>;
  /** The webhook notify uses; undefined: notify does not go out by webhook. */
  readonly notifyWebhook?: string;
  readonly fetch: FetchFn;
  /** Request timeout, ms. Default 10,000. */
  readonly timeoutMs?: number;
}

/** Options of {@link createMessageSender}: any of the two channels. */
export interface MessageSenderOptions {
  readonly email?: EmailSenderOptions;
  readonly webhook?: WebhookSenderOptions;
  /**
   * Every recipient message and notify may reach (config `tools.messaging.allowed_recipients`):
   * exact addresses, `@domain`, or `webhook:<name>`. Empty = nobody (fail closed): an agent can
   * never write to someone the operator did not list, the run's owner included.
   */
  readonly allowedRecipients: readonly string[];
}

/** The config key of the allow-list, named in every refusal. */
export const RECIPIENTS_KEY = "tools.messaging.allowed_recipients";

/** The signature header of a webhook with a secret: `sha256=<hex HMAC-SHA256(secret, body)>`. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** A sender over the configured channels (email through nodemailer, webhooks through fetch). */
export function createMessageSender(options: MessageSenderOptions): MessageSender {
  const { email, webhook } = options;
  const allowed = options.allowedRecipients.map((r) => r.toLowerCase());
  const listed = (recipient: string): string | undefined => {
    const lower = recipient.toLowerCase();
    const ok = allowed.some((r) => (r.startsWith("@") ? lower.endsWith(r) : r === lower));
    if (ok) return undefined;
    return allowed.length === 0
      ? `${RECIPIENTS_KEY} is empty, so nobody may be messaged (list ${recipient} there to allow it)`
      : `${recipient} is not in ${RECIPIENTS_KEY} (allowed: ${options.allowedRecipients.join(", ")})`;
  };
  const transport: Transporter | undefined = email
    ? nodemailer.createTransport({
        host: email.host,
        port: email.port,
        secure: email.secure,
        auth: email.user ? { user: email.user, pass: email.password ?? "" } : undefined,
        connectionTimeout: email.timeoutMs ?? 15_000,
        greetingTimeout: email.timeoutMs ?? 15_000,
        socketTimeout: email.timeoutMs ?? 15_000,
      })
    : undefined;
  const channels: MessageChannel[] = [];
  if (email) channels.push("email");
  if (webhook && Object.keys(webhook.webhooks).length > 0) channels.push("webhook");

  function emailAddress(kind: MessageKind, to: string): { address?: string; problem?: string } {
    if (!email) return { problem: "email is not configured (smtp.host)" };
    const address = kind === "notify" ? email.addressBook[to] : to;
    if (!address) return { problem: `user "${to}" has no email address (approvers)` };
    const problem = listed(address);
    return problem ? { problem } : { address };
  }

  function webhookName(kind: MessageKind, to: string): { name?: string; problem?: string } {
    if (!webhook) return { problem: "no webhooks are configured" };
    const name = kind === "notify" ? webhook.notifyWebhook : to;
    if (!name) return { problem: "no webhook is set for notifications" };
    if (!webhook.webhooks[name]) return { problem: `no webhook named "${name}" is configured` };
    const problem = listed(`webhook:${name}`);
    return problem ? { problem } : { name };
  }

  return {
    channels,
    recipientProblem(kind, channel, to) {
      return channel === "email" ? emailAddress(kind, to).problem : webhookName(kind, to).problem;
    },
    async send(message: OutboundMessage): Promise<SentMessage> {
      const shown = agentMessageForPeople(message);
      if (message.channel === "email") {
        const { address, problem } = emailAddress(message.kind, message.to);
        if (!address || !transport || !email) throw new Error(problem ?? "email is not configured");
        const messageId = `<${message.idempotencyKey}@echo-runner>`;
        await transport.sendMail({
          from: email.from,
          to: address,
          subject: shown.subject,
          text: shown.text,
          messageId,
          headers: { "Auto-Submitted": "auto-generated", "X-Echo-Runner-Run": message.origin.runId },
        });
        return { id: messageId, to: address };
      }
      const { name, problem } = webhookName(message.kind, message.to);
      const hook = name ? webhook?.webhooks[name] : undefined;
      if (!name || !hook || !webhook) throw new Error(problem ?? "no webhook");
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "idempotency-key": message.idempotencyKey,
      };
      const body = JSON.stringify({
        type: `echo-runner.${message.kind}`,
        subject: shown.subject,
        text: shown.text,
        to: message.kind === "notify" ? message.to : name,
        origin: message.origin,
        idempotencyKey: message.idempotencyKey,
      });
      if (hook.secret) headers["x-echo-runner-signature"] = webhookSignature(hook.secret, body);
      const response = await webhook.fetch(hook.url, {
        method: "POST",
        headers,
        body,
        // A redirect could carry a signed body somewhere the operator did not list.
        redirect: "error",
        signal: AbortSignal.timeout(webhook.timeoutMs ?? 10_000),
      });
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok) throw new Error(`webhook "${name}" answered HTTP ${response.status}`);
      return { id: `${name}:${response.status}`, to: `webhook ${name}` };
    },
  };
}
