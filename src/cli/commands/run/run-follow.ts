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
      reason: string;
      approvers: string[];
      deadline: number;
    }
  | { type: "waiting"; why: string }
  | { type: "decided"; approvalId: string; status: string; by: string[] }
  | { type: "resumed" }
  | { type: "finished"; status: string; finalAnswer: string; steps: number; toolCalls: number }
  | { type: "failed"; error: string }
  | { type: "timeout"; state: string };

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
  let parked = false;
  const asked = new Map<string, boolean>(); // approval id -> decided already reported
  for (;;) {
    const job = await findRunJob(queue, runId);
    const state = job ? await job.getState() : "missing";
    const entries = await trail.readByTrace(traceId);
    const reportDecided = async () => {
      for (const [id, reported] of asked) {
        if (reported) continue;
        const record = await approvals.get(id);
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
    for (const record of entries.slice(seen))
      if (record.entry.kind !== "operator") emit(auditEvent(record.entry, runId));
    seen = entries.length;
    if (state === "delayed") {
      const pending = (await approvals.list({ status: "pending", limit: 1000 })).filter(
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
          reason: r.reason,
          approvers: r.approvers.map((a) => a.id),
          deadline: r.deadline,
        });
      }
      if (!parked && pending.length === 0) emit({ type: "waiting", why: "a sub-agent, or a retry" });
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
      emit({ type: "timeout", state });
      return "timeout";
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
