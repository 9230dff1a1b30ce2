import { LANDING_REQUEST_TOOL } from "../agent/index.js";
import type { ApprovalStatus } from "../approvals/index.js";
import { isCancelledReason } from "../queue/index.js";

/**
 * How a finished run ended, in the words the CLI, the JSON API and /admin all print:
 * - `completed`: it gave its final answer and nothing it asked for was refused;
 * - `completed with denials`: it gave its final answer, but a call it asked for was denied by a
 *   person or by expiry (an approval nobody answered in time is a denial, never a plain success);
 * - `failed` (printed `failed: <code>`): it stopped without a final answer — an error's code, or the
 *   run's own stop (`max_steps`, `budget_exhausted`, `truncated`, `refused`);
 * - `cancelled`: an operator cancelled it (or its parent run stopped it);
 * - `expired`: its work waited for a person before it could land, and nobody answered in time, so
 *   nothing it did reached the workspace.
 */
export const RUN_END_OUTCOMES = [
  "completed",
  "completed with denials",
  "failed",
  "cancelled",
  "expired",
] as const;
export type RunEndOutcome = (typeof RUN_END_OUTCOMES)[number];

/** Where a run that has not ended stands: waiting for a worker, running, held by an approval, or delayed. */
export const RUN_PROGRESS = ["queued", "running", "parked", "waiting"] as const;
export type RunProgress = (typeof RUN_PROGRESS)[number];

/** The end statuses a completed job's outcome may carry besides `completed` (each is a failure). */
const STOPPED_STATUSES = ["max_steps", "budget_exhausted", "truncated", "refused"] as const;

/** Code of a failure whose reason names none (a plain error thrown on the last attempt). */
export const UNCODED_FAILURE = "INTERNAL";

/** What the outcome is derived from: the job's end and the run's approval requests. */
export interface RunEndRecord {
  state: "completed" | "failed";
  /** The completed job's `status` (RunOutcome), or null. */
  status: string | null;
  /** The failed job's reason (`CODE: message` for every run failure the worker records), or null. */
  failedReason: string | null;
  /** Every approval request of the run, with its status now (a pending one past its deadline is `expired`). */
  approvals: readonly { tool: string; status: ApprovalStatus }[];
}

/** A finished run's outcome, and the failure's code when it failed. */
export interface RunEnd {
  outcome: RunEndOutcome;
  code: string | null;
}

/** The outcome of a finished run, derived from its record (see {@link RUN_END_OUTCOMES}). */
export function runEndOf(record: RunEndRecord): RunEnd {
  if (record.state === "failed") {
    if (isCancelledReason(record.failedReason ?? undefined)) return { outcome: "cancelled", code: null };
    return { outcome: "failed", code: failureCode(record.failedReason) };
  }
  const stopped = STOPPED_STATUSES.find((s) => s === record.status);
  if (stopped) return { outcome: "failed", code: stopped };
  const landing = record.approvals.filter((a) => a.tool === LANDING_REQUEST_TOOL);
  if (landing.some((a) => a.status === "expired") && !landing.some((a) => a.status === "approved"))
    return { outcome: "expired", code: null };
  const denied = record.approvals.some((a) => a.status === "denied" || a.status === "expired");
  return { outcome: denied ? "completed with denials" : "completed", code: null };
}

/** The code a failed job's reason starts with (`MODEL_AUTH_FAILED: …`), else {@link UNCODED_FAILURE}. */
export function failureCode(reason: string | null): string {
  const match = /^([A-Z][A-Z0-9_]{2,}):/.exec(reason ?? "");
  return match?.[1] ?? UNCODED_FAILURE;
}

/** An outcome as printed: `failed: <code>` for a failure, the word itself otherwise. */
export function outcomeText(outcome: RunEndOutcome | RunProgress, code: string | null): string {
  return outcome === "failed" ? `failed: ${code ?? UNCODED_FAILURE}` : outcome;
}

/** What an outcome filter accepts: a word (`failed` matches every failure) or `failed: <code>`. */
export function matchesOutcome(filter: string, outcome: string, text: string): boolean {
  const wanted = filter.trim().replace(/\s*:\s*/, ": ");
  return wanted.includes(":") ? wanted === text : wanted === outcome;
}
