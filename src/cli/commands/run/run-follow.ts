import type { ApprovalRecord, ApprovalStore } from "../../../approvals/index.js";
import type { AuditTrail, ToolAuditEntry } from "../../../journal/index.js";
import { type AgentQueue, findRunJob } from "../../../queue/index.js";

/** What `echo-runner run` reports while it follows a run (also its `--json` lines). */
export type RunEvent =
  | { type: "enqueued"; runId: string; agent: string; model: string; task: string }
  | {
      type: "decision";
      runId: string;
      child: boolean;
      tool: string;
      verdict: "allow" | "deny" | "ask";
      step: number;
      reason: string;
      approvalSource?: string | undefined;
      approver?: string | undefined;
      /** The call a person is asked about (`ask`), as the approval request shows it; absent when not known. */
      call?: string | undefined;
    }
  | {
      type: "execution";
      runId: string;
      child: boolean;
      tool: string;
      outcome: string;
      durationMs: number;
      isReplay: boolean;
    }
  | {
      type: "parked";
      runId: string;
      approvalId: string;
      tool: string;
      /** The exact call (the command, for exec), on one line. */
      call: string;
      reason: string;
      approvers: string[];
      deadline: number;
    }
  | { type: "waiting"; why: string }
  | { type: "decided"; approvalId: string; status: string; by: string[] }
  | { type: "resumed" }
  | { type: "finished"; status: string; finalAnswer: string; steps: number; toolCalls: number }
  | { type: "failed"; error: string }
  | { type: "timeout"; runId: string; state: string };

/** Polls an ask decision waits for its approval request before it is shown without the call. */
const ASK_WAIT_POLLS = 10;

/** How a followed run ended. */
export type FollowOutcome = "completed" | "max_steps" | "failed" | "timeout";

/** Options for {@link followRun}. */
export interface FollowOptions {
  queue: AgentQueue;
  trail: AuditTrail;
  approvals: ApprovalStore;
  runId: string;
  traceId: string;
  emit: (event: RunEvent) => void;
  /** Give up following (the run goes on) after this instant, ms; undefined = never. */
  deadline?: number | undefined;
  pollMs?: number;
  now?: () => number;
}

function auditEvent(entry: ToolAuditEntry, rootRunId: string): RunEvent {
  const runId = entry.runId ?? entry.executionId;
  const child = runId !== rootRunId;
  if (entry.kind === "decision") {
    return {
      type: "decision",
      runId,
      child,
      tool: entry.tool,
      verdict: entry.verdict,
      step: entry.step,
      reason: entry.reason,
      approvalSource: entry.approvalSource,
      approver: entry.approver,
    };
  }
  return {
    type: "execution",
    runId,
    child,
    tool: entry.tool,
    outcome: entry.outcome,
    durationMs: entry.durationMs,
    isReplay: entry.isReplay,
  };
}

/**
 * The call of an approval request on one line, as a person reads it: exec's command itself, any
 * other tool's arguments as compact JSON; cut at 300 characters.
 */
export function callText(record: Pick<ApprovalRecord, "argsCanonical">): string {
  let text = record.argsCanonical;
  try {
    const stored = JSON.parse(record.argsCanonical) as Record<string, unknown>;
    // Exec-class requests bind the call with where it runs: {args, execHost, workingDirectory, …}.
    const args = (typeof stored.args === "object" && stored.args !== null ? stored.args : stored) as Record<
      string,
      unknown
    >;
    text = typeof args.command === "string" ? args.command : JSON.stringify(args);
  } catch {
    // Not JSON: shown as stored.
  }
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/**
 * The run's approval request for an audited ask, if it is stored yet: by the call's idempotency key
 * (a call that runs workspace files asks under `<key>\0files:<digest>`), else the run's request for
 * the same tool made at or after the ask.
 */
async function requestFor(
  approvals: ApprovalStore,
  runId: string,
  entry: Pick<ToolAuditEntry, "idempotencyKey" | "tool" | "at">,
): Promise<ApprovalRecord | undefined> {
  // A damaged request of the run is named when the run parks; it never stops the follow here.
  const { records } = await approvals.readMany(await approvals.runRequestIds(runId));
  const key = entry.idempotencyKey;
  const byKey =
    key === undefined
      ? undefined
      : records.find((r) => r.idempotencyKey === key || r.idempotencyKey.startsWith(`${key}\u0000`));
  return (
    byKey ??
    records
      .filter((r) => r.tool === entry.tool && r.requestedAt >= entry.at - 1000)
      .sort((a, b) => a.requestedAt - b.requestedAt)[0]
  );
}

function decidedEvent(record: ApprovalRecord): RunEvent {
  return {
    type: "decided",
    approvalId: record.id,
    status: record.status,
    by: record.decisions.map((d) => `${d.by} (${d.decision}, ${d.via})`),
  };
}

/**
 * Follows one run by polling what every process already writes: the audit trail of its trace
 * (decisions and executions, its sub-agents' too), its BullMQ job state and the approval requests
 * of its trace. Emits each thing once, in order; returns when the run ends or the deadline passes.
 * Polling keeps it independent of which worker runs the job and survives worker restarts.
 */
export async function followRun(options: FollowOptions): Promise<FollowOutcome> {
  const { queue, trail, approvals, runId, traceId, emit } = options;
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 300;
  let seen = 0;
  let askWaits = 0;
  let parked = false;
  const asked = new Map<string, boolean>(); // approval id -> decided already reported
  const named = new Set<string>(); // ids of this run's damaged requests already reported
  for (;;) {
    const job = await findRunJob(queue, runId);
    const state = job ? await job.getState() : "missing";
    const entries = await trail.readByTrace(traceId);
    const reportDecided = async () => {
      for (const [id, reported] of asked) {
        if (reported) continue;
        // A request damaged since it was reported parked decides nothing: it is left unreported.
        const [record] = (await approvals.readMany([id])).records;
        if (record && record.status !== "pending") {
          asked.set(id, true);
          emit(decidedEvent(record));
        }
      }
    };
    // A run that woke up: say so (and who decided) before what it did after waking.
    if (parked && state !== "delayed") {
      await reportDecided();
      emit({ type: "resumed" });
      parked = false;
    }
    for (const record of entries.slice(seen)) {
      if (record.entry.kind !== "operator") {
        const event = auditEvent(record.entry, runId);
        if (event.type === "decision" && event.verdict === "ask") {
          const request = await requestFor(approvals, event.runId, record.entry);
          // The gate audits its ask just before the request is stored: wait a few polls for it,
          // so the line names the call, and the lines stay in the order things happened.
          if (!request && state === "active" && askWaits < ASK_WAIT_POLLS) {
            askWaits++;
            break;
          }
          if (request) event.call = callText(request);
        }
        emit(event);
      }
      seen++;
      askWaits = 0;
    }
    if (state === "delayed") {
      // Another run's damaged request is not this follower's to report, and stops nothing here.
      const pending = (await approvals.listWithDamaged({ status: "pending", limit: 1000 })).records.filter(
        (r) => r.traceId === traceId,
      );
      for (const r of pending) {
        if (asked.has(r.id)) continue;
        asked.set(r.id, false);
        emit({
          type: "parked",
          runId: r.runId,
          approvalId: r.id,
          tool: r.tool,
          call: callText(r),
          reason: r.reason,
          approvers: r.approvers.map((a) => a.id),
          deadline: r.deadline,
        });
      }
      // This run's own damaged requests are named once each: it may be held by one of them.
      const { damaged } = await approvals.readMany(await approvals.runRequestIds(runId));
      for (const d of damaged) {
        if (named.has(d.id)) continue;
        named.add(d.id);
        asked.set(d.id, true);
        emit({ type: "waiting", why: `approval request ${d.id}, which cannot be read (${d.message})` });
      }
      if (!parked && pending.length === 0 && damaged.length === 0)
        emit({ type: "waiting", why: "a sub-agent, or a retry" });
      parked = true;
    }
    if (state === "completed") {
      await reportDecided();
      const value = job?.returnvalue as
        | { status?: string; finalAnswer?: string; steps?: number; toolCalls?: number }
        | undefined;
      const status = value?.status ?? "completed";
      emit({
        type: "finished",
        status,
        finalAnswer: value?.finalAnswer ?? "",
        steps: value?.steps ?? 0,
        toolCalls: value?.toolCalls ?? 0,
      });
      return status === "completed" ? "completed" : "max_steps";
    }
    if (state === "failed" || state === "missing") {
      emit({
        type: "failed",
        error:
          state === "missing" ? "the job is gone (removed by an operator?)" : (job?.failedReason ?? "failed"),
      });
      return "failed";
    }
    if (options.deadline !== undefined && now() >= options.deadline) {
      emit({ type: "timeout", runId, state });
      return "timeout";
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
