import type { Logger } from "../../logging/index.js";
import type { ApprovalNotifier, NotificationMessage } from "./notifier.js";

/**
 * The approval notifier when no SMTP host is set (a first `npm start`, a laptop): prints each mail
 * as plain text on the process's terminal (stderr), link included, so a person can read it and
 * click the link — whatever the log format. The log gets one line naming the request, without the
 * link (links are capabilities, and log lines are kept and shipped).
 */
export class TerminalNotifier implements ApprovalNotifier {
  readonly name = "terminal";
  readonly scope = "per_approver";
  readonly #write: (text: string) => void;
  readonly #logger: Logger;

  constructor(write: (text: string) => void, logger: Logger) {
    this.#write = write;
    this.#logger = logger;
  }

  reaches(): boolean {
    return true;
  }

  async send(message: NotificationMessage): Promise<void> {
    const rule = "=".repeat(78);
    this.#write(
      [
        "",
        rule,
        `APPROVAL NEEDED (no smtp.host is set, so this mail is printed here instead of sent)`,
        `To: ${message.approver ? `${message.approver.id}${message.approver.email ? ` <${message.approver.email}>` : ""}` : "-"}`,
        `Subject: ${message.content.subject}`,
        "",
        message.content.text.trimEnd(),
        rule,
        "",
        "",
      ].join("\n"),
    );
    this.#logger.info(
      {
        approvalId: message.record.id,
        // The run's ids, so the line can be joined with the run's other log lines and its journal.
        traceId: message.record.traceId,
        executionId: message.record.runId,
        jobId: message.record.jobId,
        approver: message.approver?.id ?? null,
        kind: message.kind,
      },
      "approval mail printed to the terminal (no smtp.host is set)",
    );
  }
}
