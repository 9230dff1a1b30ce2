import { parseArgs } from "node:util";
import { verifyAudit } from "../../../journal/index.js";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { openAudit } from "./audit-shared.js";

const USAGE = "echo-runner audit verify [--config FILE] [--json]";

/**
 * `echo-runner audit verify`: walks the whole hash chain. Exit 0 when every link holds, 1 naming the
 * first broken link (the entry's stream id, its seq and what is wrong).
 */
export const auditVerifyCommand: CliCommand = {
  words: ["audit", "verify"],
  summary: "verify the audit trail's hash chain (exit 1 at the first broken link)",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    if (positionals.length > 0) {
      throw new RunnerError("CLI_USAGE", `unexpected argument "${positionals[0]}"; usage: ${USAGE}`);
    }
    const audit = await openAudit(io, values.config);
    try {
      const result = await verifyAudit({ redis: audit.redis, keyPrefix: audit.keyPrefix });
      if (values.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
      else if (result.ok) {
        io.stdout(
          result.head === null
            ? "audit trail verified: it is empty\n"
            : `audit trail verified: ${result.checked} entries, head seq ${result.head.seq} hash ${result.head.hash}\n`,
        );
      } else {
        const at = result.brokenAt;
        io.stdout(
          `audit trail BROKEN at entry ${at.id ?? "(none)"}${at.seq === null ? "" : ` (seq ${at.seq})`}: ` +
            `${at.problem}: ${at.message}; ${result.checked} entries verified before it\n`,
        );
      }
      return result.ok ? EXIT.ok : EXIT.failed;
    } finally {
      await audit.close();
    }
  },
};
