import type { AuditSink } from "../agent/index.js";
import { UNKNOWN_TOOL_LABEL } from "./families.js";
import type { RunnerMetrics } from "./recorder.js";

/**
 * Counts tool calls where they are recorded: after the audit trail took the gate decision or the
 * execution, so the counters say what the audit trail says (verdict and deciding step included).
 * The tool label is the registry's name or {@link UNKNOWN_TOOL_LABEL}, never a model's invention.
 * A decision is counted once per run, call, verdict and step, however often a replay re-audits it.
 * The increment is sent, not awaited: it never fails (RunnerMetrics logs), and Redis runs a
 * connection's commands in order, so whatever the run awaits next on it comes after the count.
 */
export function meteredAuditSink(
  inner: AuditSink,
  metrics: RunnerMetrics,
  isKnownTool: (name: string) => boolean,
): AuditSink {
  const label = (tool: string) => (isKnownTool(tool) ? tool : UNKNOWN_TOOL_LABEL);
  return {
    async decision(entry) {
      await inner.decision(entry);
      void metrics.toolDecision(label(entry.tool), entry.decision.verdict, entry.decision.step, {
        runId: entry.payload.runId,
        idempotencyKey: entry.idempotencyKey,
      });
    },
    decisionEntry: (entry) => inner.decisionEntry(entry),
    execution: (entry) => inner.execution(entry),
    fromOutbox: (runId, key, text) => inner.fromOutbox(runId, key, text),
    // Counted when appended, once: a second delivery of the same entry appends nothing.
    async deliver(entry) {
      const appended = await inner.deliver(entry);
      if (!appended) return appended;
      const { decision } = entry;
      if (decision === undefined) void metrics.toolExecution(label(entry.tool), entry.outcome);
      else
        void metrics.toolDecision(label(entry.tool), decision.verdict, decision.step, {
          runId: decision.runId,
          idempotencyKey: decision.idempotencyKey,
        });
      return appended;
    },
  };
}
