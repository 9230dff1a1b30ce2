import { type ExecutableCheckInput, judgeExecutable } from "./executable-check.js";
import type { ApprovalRecord } from "./record.js";

/**
 * What a woken job does at its parked call (docs/DESIGN.md §7): run it with approvalSource "human",
 * give the model a denial result, or park again until the deadline (woken early, e.g. one of
 * several required approvals arrived).
 */
export type ParkedCallAction =
  | { action: "execute"; approvers: string[]; always: boolean; approvalId: string }
  | { action: "deny"; reason: string; message: string; approvalId: string }
  | { action: "wait"; until: number; approvalId: string };

/**
 * Decides a woken job's next step from the request as read now. Built on the execution-time check,
 * so changed arguments, another tool, a stale approval, a denial, an expiry or a cancellation never
 * run; only a pending request before its deadline waits again.
 */
export function resolveParkedCall(
  record: ApprovalRecord | null,
  call: ExecutableCheckInput,
  now: number,
): ParkedCallAction {
  const check = judgeExecutable(record, call, now);
  if (check.ok) {
    return { action: "execute", approvers: check.approvers, always: check.always, approvalId: call.id };
  }
  if (check.reason === "pending" && record !== null) {
    return { action: "wait", until: record.deadline, approvalId: call.id };
  }
  return { action: "deny", reason: check.reason, message: check.message, approvalId: call.id };
}
