import nodemailer, { type Transporter } from "nodemailer";
import type {
  MessageChannel,
  MessageKind,
  MessageSender,
  OutboundMessage,
  SentMessage,
} from "./message-port.js";
import type { FetchFn } from "./provider-http.js";

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
  /**
   * Who `message` may write to besides the address book: exact addresses or `@domain`. Empty: only
   * the address book (an agent cannot mail arbitrary addresses).
   */
  readonly allowedRecipients: readonly string[];
  /** Connect and socket timeout, ms. Default 15,000. */
  readonly timeoutMs?: number;
}

/** Webhook delivery: named endpoints that receive a JSON POST per message. */
export interface WebhookSenderOptions {
  readonly webhooks: Readonly<Record<string, { readonly url: string; readonly token?: string }>>;
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
}

/** A sender over the configured channels (email through nodemailer, webhooks through fetch). */
export function createMessageSender(options: MessageSenderOptions): MessageSender {
  const { email, webhook } = options;
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
    if (kind === "notify") {
      const address = email.addressBook[to];
      return address ? { address } : { problem: `user "${to}" has no email address (approvers)` };
    }
    const lower = to.toLowerCase();
    const known = Object.values(email.addressBook).some((a) => a.toLowerCase() === lower);
    const allowed = email.allowedRecipients.some((r) =>
      r.startsWith("@") ? lower.endsWith(r.toLowerCase()) : r.toLowerCase() === lower,
    );
    return known || allowed
      ? { address: to }
      : { problem: `${to} is not in the address book or the allowed recipients` };
  }

  function webhookName(kind: MessageKind, to: string): { name?: string; problem?: string } {
    if (!webhook) return { problem: "no webhooks are configured" };
    const name = kind === "notify" ? webhook.notifyWebhook : to;
    if (!name) return { problem: "no webhook is set for notifications" };
    return webhook.webhooks[name] ? { name } : { problem: `no webhook named "${name}" is configured` };
  }

  return {
    channels,
    recipientProblem(kind, channel, to) {
      return channel === "email" ? emailAddress(kind, to).problem : webhookName(kind, to).problem;
    },
    async send(message: OutboundMessage): Promise<SentMessage> {
      if (message.channel === "email") {
        const { address, problem } = emailAddress(message.kind, message.to);
        if (!address || !transport || !email) throw new Error(problem ?? "email is not configured");
        const messageId = `<${message.idempotencyKey}@echo-runner>`;
        await transport.sendMail({
          from: email.from,
          to: address,
          subject: message.subject,
          text: message.text,
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
      if (hook.token) headers.authorization = `Bearer ${hook.token}`;
      const response = await webhook.fetch(hook.url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          type: `echo-runner.${message.kind}`,
          subject: message.subject,
          text: message.text,
          to: message.kind === "notify" ? message.to : name,
          origin: message.origin,
          idempotencyKey: message.idempotencyKey,
        }),
        signal: AbortSignal.timeout(webhook.timeoutMs ?? 10_000),
      });
      if (!response.ok) throw new Error(`webhook "${name}" answered HTTP ${response.status}`);
      return { id: `${name}:${response.status}`, to: `webhook ${name}` };
    },
  };
}
