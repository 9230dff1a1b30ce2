import { parseArgs } from "node:util";
import { AuditTrail } from "../../../journal/index.js";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { terminalJson, terminalText } from "../../terminal-text.js";
import { wholeNumberOption } from "../shared/index.js";
import { auditLine, type ListedEntry, openAudit, readRecentEntries } from "./audit-shared.js";

/** Entries shown when --limit is not given. */
export const DEFAULT_AUDIT_LIMIT = 50;
/** Largest --limit accepted (one Redis reply holds them all). */
export const MAX_AUDIT_LIMIT = 10_000;

const USAGE = "echo-runner audit [--trace ID] [--limit N] [--config FILE] [--json]";

const parseLimit = (text: string | undefined): number =>
  wholeNumberOption("--limit", text, { default: DEFAULT_AUDIT_LIMIT, min: 1, max: MAX_AUDIT_LIMIT });

/**
 * `echo-runner audit`: the newest audit entries (of one trace with --trace), oldest first, one line
 * each. An entry that does not decode is shown as such and makes the exit code 1.
 */
export const auditListCommand: CliCommand = {
  words: ["audit"],
  summary: "list audit trail entries (gate decisions and executions), newest last",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        trace: { type: "string" },
        limit: { type: "string" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    if (positionals.length > 0) {
      throw new RunnerError(
        "CLI_USAGE",
        `unexpected argument "${positionals[0]}" (subcommand: verify); usage: ${USAGE}`,
      );
    }
    if (values.trace !== undefined && (values.trace === "" || /[{}]/.test(values.trace))) {
      throw new RunnerError("CLI_USAGE", `--trace must be a non-empty trace id without { or }`);
    }
    const limit = parseLimit(values.limit);
    const audit = await openAudit(io, values.config);
    try {
      const entries: ListedEntry[] =
        values.trace === undefined
          ? await readRecentEntries(audit.redis, audit.keyPrefix, limit)
          : (
              await new AuditTrail({ redis: audit.redis, keyPrefix: audit.keyPrefix }).readByTrace(
                values.trace,
              )
            )
              .slice(-limit)
              .map((record) => ({ ok: true, record }));
      const broken = entries.filter((e) => !e.ok);
      if (values.json) {
        io.stdout(
          `${terminalJson(
            entries.map((e) => (e.ok ? e.record : { id: e.id, malformed: e.problem })),
            2,
          )}\n`,
        );
      } else if (entries.length === 0) {
        io.stdout(
          values.trace === undefined
            ? "the audit trail is empty\n"
            : `no audit entries for trace ${values.trace}\n`,
        );
      } else {
        const lines = entries.map((e) => (e.ok ? auditLine(e.record) : `${e.id}  MALFORMED  ${e.problem}`));
        io.stdout(terminalText(`${lines.join("\n")}\n`));
      }
      if (broken.length > 0) {
        io.stderr(
          `echo-runner: ${broken.length} audit entr${broken.length === 1 ? "y does" : "ies do"} not decode (first: ${broken[0]?.ok === false ? broken[0].id : ""}); run \`echo-runner audit verify\`\n`,
        );
        return EXIT.failed;
      }
      return EXIT.ok;
    } finally {
      await audit.close();
    }
  },
};
