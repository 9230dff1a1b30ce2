import { parseArgs } from "node:util";
import { formatTime, renderArgs, requestFacts } from "../../../approvals/index.js";
import { makeVisible } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { openApprovals, requestIdArg } from "./approvals-shared.js";

const USAGE = "echo-runner approvals show <id> [--config FILE] [--json]";

/** `echo-runner approvals show <id>`: the whole request, its decisions and who fetched its links. */
export const approvalsShowCommand: CliCommand = {
  words: ["approvals", "show"],
  summary: "show one approval request: the exact call, its hash, decisions and link fetches",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    const id = requestIdArg(positionals, USAGE);
    const approvals = await openApprovals(io, values.config);
    try {
      const record = await approvals.store.require(id);
      if (values.json) {
        // Escaped hidden characters read back as the same JSON values, and a terminal shows them.
        io.stdout(`${makeVisible(JSON.stringify(record, null, 2))}\n`);
        return EXIT.ok;
      }
      const lines = [`Request ${record.id}: ${record.status}`, ""];
      for (const [label, value] of requestFacts(record)) lines.push(`${`${label}:`.padEnd(18)}${value}`);
      lines.push("", `Arguments (SHA-256 ${record.argsHash}):`, renderArgs(record.argsCanonical), "");
      lines.push(
        makeVisible(
          `Approvers: ${record.approvers.map((a) => a.id).join(", ") || "(none: CLI and API only)"}`,
        ),
      );
      lines.push("Decisions:");
      if (record.decisions.length === 0) lines.push("  (none)");
      for (const d of record.decisions) {
        const what = d.decision === "deny" ? "denied" : d.kind === "always" ? "approved always" : "approved";
        lines.push(
          makeVisible(
            `  ${what} by ${d.by} at ${formatTime(d.at)} via ${d.via}${d.comment ? `: ${d.comment}` : ""}`,
          ),
        );
      }
      lines.push(`Notified: ${record.notifiedAt === null ? "not yet" : formatTime(record.notifiedAt)}`);
      lines.push(`Link fetches (newest first, ${record.fetches.length}):`);
      for (const f of record.fetches) {
        lines.push(
          makeVisible(
            `  ${formatTime(f.at)} ${f.method} ${f.ip} ${f.approver ?? "(no valid token)"} ${f.userAgent}`,
          ),
        );
      }
      io.stdout(`${lines.join("\n")}\n`);
      return EXIT.ok;
    } finally {
      await approvals.close();
    }
  },
};
