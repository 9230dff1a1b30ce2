import type { AuditTrail } from "../../journal/index.js";
import { CAPABILITIES, type Capability } from "../../tools/index.js";
import type { AuditSink } from "../run/ports.js";

const KNOWN_CAPABILITIES: ReadonlySet<string> = new Set(CAPABILITIES);

function capabilityList(capabilities: readonly string[]): Capability[] {
  return capabilities.filter((c): c is Capability => KNOWN_CAPABILITIES.has(c));
}

/** Writes gate decisions and executions to the hash-chained audit trail. */
export function auditTrailSink(trail: AuditTrail): AuditSink {
  return {
    async decision({ payload, tool, decision, capabilities, idempotencyKey }) {
      await trail.append({
        kind: "decision",
        traceId: payload.traceId,
        executionId: payload.runId,
        runId: payload.runId,
        tool,
        risk: decision.risk,
        capabilities: capabilityList(capabilities),
        idempotencyKey,
        verdict: decision.verdict,
        step: decision.step,
        reason: decision.reason,
        ...(decision.verdict === "allow" ? { approvalSource: decision.approvalSource } : {}),
        detail: { stepName: decision.stepName, flagged: decision.flagged },
      });
    },
    async execution({
      payload,
      tool,
      risk,
      capabilities,
      result,
      durationMs,
      approvalSource,
      approver,
      idempotencyKey,
      replay,
    }) {
      await trail.append({
        kind: "execution",
        traceId: payload.traceId,
        executionId: payload.runId,
        runId: payload.runId,
        tool,
        risk,
        capabilities: capabilityList(capabilities),
        idempotencyKey,
        approvalSource,
        ...(approver ? { approver } : {}),
        outcome: result.success ? "success" : result.errorKind,
        durationMs: Math.max(0, Math.round(durationMs)),
        isReplay: replay,
        ...(result.success ? {} : { reason: result.error.split("\n")[0]?.slice(0, 400) ?? "" }),
      });
    },
  };
}
