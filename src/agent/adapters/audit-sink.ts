import { randomBytes } from "node:crypto";
import { CAPABILITIES, type Capability } from "../../catalog/index.js";
import { AuditEvent, type AuditTrail, type PreparedAuditEvent } from "../../journal/index.js";
import { RunnerError, sha256Hex } from "../../shared/index.js";
import type { AuditSink, DecisionRecord, OutboxEntry } from "../run/ports.js";

const KNOWN_CAPABILITIES: ReadonlySet<string> = new Set(CAPABILITIES);

function capabilityList(capabilities: readonly string[]): Capability[] {
  return capabilities.filter((c): c is Capability => KNOWN_CAPABILITIES.has(c));
}

/** What an outbox entry carries besides its text: the checked event and its delivery id. */
interface Prepared {
  readonly event: PreparedAuditEvent;
  readonly deliveryId: string;
}

/**
 * The delivery id of one attempt's execution entry: distinct per run, call and attempt (a re-run
 * after a crash is an execution of its own), short because the trail keeps one per entry.
 */
function deliveryIdOf(runId: string, key: string, attempt: number): string {
  return sha256Hex(`${runId}\n${key}\n${attempt}`).slice(0, 20);
}

/** Writes gate decisions and executions to the hash-chained audit trail. */
export function auditTrailSink(trail: AuditTrail): AuditSink {
  // The checked event of each entry made or read here, so delivering it checks nothing twice.
  const prepared = new WeakMap<OutboxEntry, Prepared>();
  const entryOf = (event: PreparedAuditEvent, deliveryId: string, text: string): OutboxEntry => {
    const outcome = event.kind === "execution" ? event.outcome : "success";
    const entry: OutboxEntry = {
      text,
      tool: event.kind === "operator" ? event.action : event.tool,
      outcome,
      ...(event.kind === "decision" && event.runId !== undefined && event.idempotencyKey !== undefined
        ? {
            decision: {
              verdict: event.verdict,
              step: event.step,
              runId: event.runId,
              idempotencyKey: event.idempotencyKey,
            },
          }
        : {}),
    };
    prepared.set(entry, { event, deliveryId });
    return entry;
  };
  const decode = (runId: string, key: string, text: string): OutboxEntry => {
    const corrupt = (why: string, cause?: unknown) =>
      new RunnerError(
        "JOURNAL_CORRUPT",
        `The outbox entry of key "${key}" in the journal of run "${runId}" ${why}`,
        { data: { runId, key }, ...(cause === undefined ? {} : { cause }) },
      );
    let stored: unknown;
    try {
      stored = JSON.parse(text);
    } catch (cause) {
      throw corrupt("is not JSON", cause);
    }
    const { d, e } = (stored ?? {}) as { d?: unknown; e?: unknown };
    if (typeof d !== "string" || typeof e !== "object" || e === null) {
      throw corrupt('is not {"d": <delivery id>, "e": <audit entry>}');
    }
    const parsed = AuditEvent.safeParse(e);
    if (!parsed.success || (parsed.data.kind !== "execution" && parsed.data.kind !== "decision")) {
      throw corrupt("does not hold an execution or decision audit event");
    }
    return entryOf(trail.prepare(parsed.data), d, text);
  };
  return {
    async decision(record) {
      await trail.append(decisionEvent(record));
    },
    decisionEntry(record) {
      const event = trail.prepare(decisionEvent(record));
      // One decision, however often its stored entry is delivered: the id travels in the entry.
      // A decision made again on each replay (`once`) has the same id every time.
      const deliveryId = record.once
        ? sha256Hex(`${record.payload.runId}\n${record.idempotencyKey}\ndecision`).slice(0, 20)
        : randomBytes(10).toString("hex");
      return entryOf(event, deliveryId, JSON.stringify({ d: deliveryId, e: event }));
    },
    execution({
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
      attempt,
    }) {
      const event = trail.prepare({
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
      const deliveryId = deliveryIdOf(payload.runId, idempotencyKey, attempt);
      return entryOf(event, deliveryId, JSON.stringify({ d: deliveryId, e: event }));
    },
    fromOutbox: decode,
    async deliver(entry) {
      const known = prepared.get(entry) ?? prepared.get(decode("(unknown)", "(unknown)", entry.text));
      if (known === undefined) throw new RunnerError("INTERNAL", "an outbox entry without its event");
      return (await trail.appendOnce(known.event, known.deliveryId)) !== null;
    },
  };
}

/** The audit event of a gate decision. */
function decisionEvent({
  payload,
  tool,
  decision,
  capabilities,
  idempotencyKey,
}: DecisionRecord): AuditEvent {
  return {
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
  };
}
