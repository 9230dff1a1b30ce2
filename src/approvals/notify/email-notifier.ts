import nodemailer, { type Transporter } from "nodemailer";
import { RunnerError } from "../../shared/index.js";
import type { Approver } from "../store/index.js";
import type { MessageContent } from "./approval-message.js";
import type { ApprovalNotifier, NotificationMessage } from "./notifier.js";

/** SMTP settings (the config's `smtp.*`, with the password resolved from its env var). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** Implicit TLS (port 465). */
  secure: boolean;
  /** "" = no authentication. */
  user: string;
  password?: string;
  from: string;
  /** Connect / greeting / socket timeout, ms. Default 15 000. */
  timeoutMs?: number;
}

/** Sends each approver a plain-text and HTML mail through nodemailer. */
export class EmailNotifier implements ApprovalNotifier {
  readonly name = "email";
  readonly scope = "per_approver";
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(settings: SmtpSettings) {
    if (settings.host.length === 0) {
      throw new RunnerError("APPROVAL_INPUT_INVALID", "the email notifier needs an SMTP host (smtp.host)");
    }
    const timeout = settings.timeoutMs ?? 15_000;
    this.#transport = nodemailer.createTransport({
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      auth: settings.user ? { user: settings.user, pass: settings.password ?? "" } : undefined,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    this.#from = settings.from;
  }

  reaches(approver: Approver): boolean {
    return approver.email !== null && approver.email.length > 0;
  }

  async send(message: NotificationMessage): Promise<void> {
    const to = message.approver?.email;
    if (!to) throw new RunnerError("INTERNAL", "the email notifier was handed a message without an address");
    await this.mail(to, message.content, { "X-Echo-Runner-Approval": message.record.id });
  }

  /**
   * Sends one mail (approval messages and alerts share the transport): marked auto-generated, so
   * autoresponders stay quiet, plus the given `X-Echo-Runner-*` headers. Throws on failure.
   */
  async mail(to: string, content: MessageContent, headers: Record<string, string> = {}): Promise<void> {
    await this.#transport.sendMail({
      from: this.#from,
      to,
      subject: content.subject,
      text: content.text,
      html: content.html,
      headers: { "Auto-Submitted": "auto-generated", ...headers },
    });
  }

  /** Closes pooled connections (none by default; kept for symmetry with shutdown code). */
  close(): void {
    this.#transport.close();
  }
}
