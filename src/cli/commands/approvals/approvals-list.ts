import { parseArgs } from "node:util";
import { APPROVAL_STATUSES, type ApprovalStatus } from "../../../approvals/index.js";
import { makeVisible, RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { openApprovals, summaryLine } from "./approvals-shared.js";

/**
 * `echo-runner approvals list`: pending requests (or those of one status, or all). A request that
 * cannot be read is named on stderr (in `damaged` with --json) and the exit code is 1; the others
 * are listed all the same.
 */
export const approvalsListCommand: CliCommand = {
  words: ["approvals", "list"],
  summary: "list approval requests (pending by default)",
  usage:
    "echo-runner approvals list [--status pending|approved|denied|expired|cancelled|all] [--config FILE] [--json]",
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        status: { type: "string", default: "pending" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: false,
    });
    const status = values.status;
    if (status !== "all" && !(APPROVAL_STATUSES as readonly string[]).includes(status)) {
      throw new RunnerError(
        "CLI_USAGE",
        `--status must be one of ${[...APPROVAL_STATUSES, "all"].join(", ")}, got "${status}"`,
      );
    }
    const approvals = await openApprovals(io, values.config);
    try {
      if (status === "pending") await approvals.store.expireDue();
      const { records, damaged } = await approvals.store.listWithDamaged({
        status: status === "all" ? undefined : (status as ApprovalStatus),
      });
      if (values.json)
        io.stdout(`${makeVisible(JSON.stringify({ approvals: records, damaged }, null, 2))}\n`);
      else if (records.length === 0)
        io.stdout(`no ${status === "all" ? "" : `${status} `}approval requests\n`);
      else io.stdout(`${records.map(summaryLine).join("\n")}\n`);
      // The readable ones are listed; each damaged one is named, and the exit code says some are.
      for (const d of damaged) io.stderr(`${makeVisible(`damaged ${d.id}: ${d.code}: ${d.message}`)}\n`);
      return damaged.length > 0 ? EXIT.failed : EXIT.ok;
    } finally {
      await approvals.close();
    }
  },
};
