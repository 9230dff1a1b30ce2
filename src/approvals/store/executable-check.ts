import { timingSafeEqual } from "node:crypto";
import { assertNever } from "../../shared/index.js";
import { type ApprovalRecord, approvalOutcome, effectiveStatus } from "./record.js";

/** Why an approval does not let a call run. */
export const NOT_EXECUTABLE_REASONS = [
  "not_found",
  "run_mismatch",
  "tool_mismatch",
  "args_mismatch",
  "pending",
  "denied",
  "expired",
  "cancelled",
  "approval_stale",
] as const;
export type NotExecutableReason = (typeof NOT_EXECUTABLE_REASONS)[number];

/** The call about to run, as the executor sees it at that moment. */
export interface ExecutableCheckInput {
  id: string;
  runId: string;
  tool: string;
  /** Hex SHA-256 of the canonical arguments about to be executed. */
  argsHash: string;
}

/** The answer of {@link judgeExecutable}. */
export type ExecutableCheck =
  | {
      ok: true;
      record: ApprovalRecord;
      /** Distinct approvers, for the context and the audit trail. */
      approvers: string[];
      /** Every approval asked for an allow-always record (exec only). */
      always: boolean;
    }
  | { ok: false; reason: NotExecutableReason; message: string; record: ApprovalRecord | null };

/**
 * Whether `record` lets this exact call run at `now` (docs/DESIGN.md principle 4): the same run and tool,
 * arguments whose hash equals the approved one (constant-time), status approved before its deadline
 * (honoured however late the run wakes), or else within its execution window. Any other state is a
 * refusal naming the reason; nothing defaults to allowed.
 */
export function judgeExecutable(
  record: ApprovalRecord | null,
  input: ExecutableCheckInput,
  now: number,
): ExecutableCheck {
  const refuse = (reason: NotExecutableReason, message: string): ExecutableCheck => ({
    ok: false,
    reason,
    message: `approval ${input.id}: ${message}`,
    record,
  });
  if (record === null)
    return refuse("not_found", "no such request (never registered, or expired from the store)");
  if (record.runId !== input.runId)
    return refuse("run_mismatch", `it belongs to run ${record.runId}, not ${input.runId}`);
  if (record.tool !== input.tool)
    return refuse("tool_mismatch", `it approves tool ${record.tool}, not ${input.tool}`);
  if (!hashesEqual(record.argsHash, input.argsHash)) {
    return refuse(
      "args_mismatch",
      "the arguments differ from the approved ones; changed arguments need a new approval",
    );
  }
  const status = effectiveStatus(record, now);
  switch (status) {
    case "pending":
      return refuse("pending", "no decision yet");
    case "denied":
      return refuse("denied", `denied by ${record.decisions.find((d) => d.decision === "deny")?.by ?? "?"}`);
    case "expired":
      return refuse("expired", "nobody decided before the deadline");
    case "cancelled":
      return refuse("cancelled", "the run was cancelled");
    case "approved": {
      // A decision made before the deadline is a durable fact: the run may wake long after it (no
      // worker ran, the promoter missed it) and still runs what was approved. The execution window
      // only matters for a record that does not show it was settled in time.
      const settledInTime = record.finishedAt !== null && record.finishedAt < record.deadline;
      if (!settledInTime && (record.executableUntil === null || now > record.executableUntil)) {
        return refuse("approval_stale", "the approval is too old to start the call now");
      }
      const { approvers, always } = approvalOutcome(record);
      return { ok: true, record, approvers, always };
    }
    default:
      return assertNever(status, "approval status");
  }
}

function hashesEqual(a: string, b: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}
