import { parseArgs } from "node:util";
import {
  type ApprovalDecision,
  type ApprovalStore,
  type ApprovalVote,
  describeRefusal,
  formatTime,
} from "../../../approvals/index.js";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, type CliIo, EXIT } from "../../io.js";
import { operatorIdentity } from "../shared/index.js";
import { openApprovals, requestIdArg } from "./approvals-shared.js";

const APPROVE_USAGE =
  "echo-runner approvals approve <id> [--always] [--comment TEXT] [--config FILE] [--json]";
const DENY_USAGE = "echo-runner approvals deny <id> [--comment TEXT] [--config FILE] [--json]";

/**
 * The approver the CLI decides as: the name (config `operator`, else $USER) must name an entry of
 * `approvers` after normalisation (case, spacing, Unicode width); the decision records that entry's
 * id. A name that names nobody is a usage error, never a new voter.
 */
function deciderIdentity(store: ApprovalStore, name: string): string {
  const approver = store.findApprover(name);
  if (approver === null) {
    const listed = store.approvers.map((a) => a.id).join(", ") || "(none configured)";
    throw new RunnerError(
      "CLI_USAGE",
      `the CLI decides as "${name}" (config \`operator\`, else $USER), which is not one of the approvers: ${listed}. Set \`operator\` to your entry in \`approvers\`.`,
    );
  }
  return approver.id;
}

/**
 * Records the operator's decision. The parked job is woken by the worker, which reads the store's
 * events stream (a CLI process has no worker to promote it directly).
 */
async function decide(args: string[], io: CliIo, verdict: ApprovalVote, usage: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: "string" },
      comment: { type: "string", default: "" },
      json: { type: "boolean", default: false },
      ...(verdict === "approve" ? { always: { type: "boolean", default: false } } : {}),
    },
    allowPositionals: true,
  });
  const id = requestIdArg(positionals, usage);
  const approvals = await openApprovals(io, values.config);
  try {
    const operator = deciderIdentity(approvals.store, operatorIdentity(approvals.config, io.env));
    const decision: ApprovalDecision =
      verdict === "deny" ? "deny" : values.always ? "approve_always" : "approve";
    const result = await approvals.store.decide({
      id,
      actor: { kind: "operator", id: operator, via: "cli" },
      decision,
      comment: values.comment,
    });
    if (values.json) {
      const final = result.outcome === "decided" ? result.final : false;
      io.stdout(`${JSON.stringify({ outcome: result.outcome, final, approval: result.record }, null, 2)}\n`);
    } else if (result.outcome === "decided") {
      const pendingNote = result.final ? "" : " (more approvals needed; still pending)";
      io.stdout(
        `${decision} recorded for ${id} as ${operator}; status: ${result.record.status}${pendingNote}\n`,
      );
    } else {
      const first = result.record?.decisions[0];
      const detail = first
        ? ` First decision: ${first.decision} by ${first.by} at ${formatTime(first.at)}.`
        : "";
      io.stderr(`echo-runner: ${result.outcome}: ${describeRefusal(result.outcome)}${detail}\n`);
    }
    return result.outcome === "decided" ? EXIT.ok : EXIT.failed;
  } finally {
    await approvals.close();
  }
}

/** `echo-runner approvals approve <id> [--always]`. */
export const approvalsApproveCommand: CliCommand = {
  words: ["approvals", "approve"],
  summary:
    "approve a pending request as the operator (--always: also allow this command in future, exec only)",
  usage: APPROVE_USAGE,
  run: (args, io) => decide(args, io, "approve", APPROVE_USAGE),
};

/** `echo-runner approvals deny <id>`. */
export const approvalsDenyCommand: CliCommand = {
  words: ["approvals", "deny"],
  summary: "deny a pending request as the operator",
  usage: DENY_USAGE,
  run: (args, io) => decide(args, io, "deny", DENY_USAGE),
};
