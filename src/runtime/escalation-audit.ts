import type { EscalationAuditPort } from "../approvals/index.js";
import type { AuditTrail } from "../journal/index.js";

/**
 * Escalations on the hash-chained audit trail: an `ask` decision entry (step 11, a person is asked)
 * in the run's trace, naming whom it was escalated to and after how long; `detail.escalation` holds
 * the request id and the list, so `echo-runner audit` and the run's page show it.
 */
export function escalationAuditTrail(trail: AuditTrail): EscalationAuditPort {
  return {
    async escalated(record, to, afterMs) {
      const minutes = Math.round(afterMs / 60_000);
      await trail.append({
        kind: "decision",
        traceId: record.traceId,
        executionId: record.runId,
        runId: record.runId,
        tool: record.tool,
        risk: record.risk,
        capabilities: [],
        verdict: "ask",
        step: 11,
        approvalSource: "human",
        reason: `approval request ${record.id} escalated to ${to.length ? to.join(", ") : "nobody reachable"}: still pending ${minutes} minute(s) after it was made`,
        detail: { escalation: { requestId: record.id, to: [...to], afterMinutes: minutes } },
      });
    },
  };
}
