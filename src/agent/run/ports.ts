import type { ApprovalSource, ToolResult } from "../../catalog/index.js";
import type { GateCall, GateDecision } from "../../gate/index.js";
import type { AgentJobPayload } from "../../queue/index.js";

export type { CallGuard } from "../../guard/index.js";

/** What the approval store knows about a parked call (looked up by the call's idempotency key). */
export type ApprovalState =
  | { readonly status: "none" }
  | { readonly status: "pending"; readonly deadline: number }
  | {
      readonly status: "approved";
      readonly approver: string;
      readonly argsHash: string;
      readonly tool: string;
      /** The approvers' comments (a clarify question's answer). */
      readonly comment: string;
    }
  | { readonly status: "denied" | "expired" | "cancelled"; readonly by: string; readonly reason: string };

/** A request to park the run until a person answers. */
export interface ParkRequest {
  readonly kind: "approval" | "in_doubt" | "clarify";
  readonly payload: AgentJobPayload;
  readonly jobId: string;
  readonly idempotencyKey: string;
  readonly call: GateCall;
  readonly decision: GateDecision | undefined;
  readonly reason: string;
  /**
   * What the approver sees and the call's argsHash covers, when more than the arguments (an
   * exec-class call: its arguments, exec host and working directory; see approval-hash.ts).
   */
  readonly subject?: unknown;
}

/** Two-phase approvals as the run sees them (implemented over src/approvals by the worker). */
export interface ApprovalPort {
  /**
   * The state of the approval for this call, if one was ever registered, judged against the call
   * about to run (tool and argument hash re-checked: changed arguments never run under it).
   */
  lookup(call: {
    runId: string;
    idempotencyKey: string;
    tool: string;
    argsHash: string;
    agentId: string;
  }): Promise<ApprovalState>;
  /** Registers the request (idempotent), sends the notification once, returns when to wake up (ms). */
  register(request: ParkRequest): Promise<{ wakeAt: number }>;
}

/**
 * An audit entry on its way to the audit trail: a tool execution's, stored in the run's journal
 * with the call's result, or the gate decision that let a call run, stored with the call's claim
 * (the run's outbox); appended afterwards, without the run waiting for it.
 */
export interface OutboxEntry {
  /** What the journal keeps beside the call's claim or result until the entry is delivered. */
  readonly text: string;
  readonly tool: string;
  /** "success" or the result's error kind ("success" for a decision). */
  readonly outcome: string;
  /** Set for a decision entry: what it decided, for the metrics counted on delivery. */
  readonly decision?: {
    readonly verdict: GateDecision["verdict"];
    readonly step: number;
    readonly runId: string;
    readonly idempotencyKey: string;
  };
}

/** What a gate decision's audit entry records. */
export interface DecisionRecord {
  payload: AgentJobPayload;
  tool: string;
  decision: GateDecision;
  capabilities: readonly string[];
  idempotencyKey: string;
  /**
   * Appended at most once per run and call, however often the call is decided: a call that acts on
   * its own run (delegate_task) is decided again on the replay that reads its child's answer.
   */
  once?: boolean;
}

/** Where every gate decision and execution goes (the hash-chained audit trail). */
export interface AuditSink {
  decision(entry: DecisionRecord): Promise<void>;
  /**
   * The decision entry of a call about to be claimed, checked and redacted, for the run's outbox
   * (stored with the claim, see RunOutbox); AUDIT_ENTRY_INVALID when it does not fit the audit schema.
   */
  decisionEntry(entry: DecisionRecord): OutboxEntry;
  /**
   * The execution entry of a call, checked and redacted, for the run's outbox (see RunOutbox);
   * AUDIT_ENTRY_INVALID when it does not fit the audit schema. `attempt` is the journal claim's:
   * each attempt that ran the tool is its own entry.
   */
  execution(entry: {
    payload: AgentJobPayload;
    tool: string;
    risk: GateDecision["risk"];
    capabilities: readonly string[];
    result: ToolResult;
    durationMs: number;
    approvalSource: ApprovalSource;
    approver?: string | undefined;
    idempotencyKey: string;
    replay: boolean;
    attempt: number;
  }): OutboxEntry;
  /** An outbox entry as the journal kept it (JOURNAL_CORRUPT naming the run and key when it is not one). */
  fromOutbox(runId: string, key: string, text: string): OutboxEntry;
  /**
   * Appends an outbox entry to the audit trail at most once, however often it is delivered (a
   * worker that died after appending sends it again): true when this call appended it.
   */
  deliver(entry: OutboxEntry): Promise<boolean>;
}

/** Stores the full text of a truncated result so `read_spill` can page through it. */
export interface SpillStore {
  put(runId: string, key: string, text: string): Promise<string>;
}

// The children port is implemented over the agent queue, which owns its shape (queue may not import agent).
export type {
  ChildFlowRecord,
  ChildrenPort,
  ChildState,
  ChildStopOutcome,
  ChildUpdateOutcome,
} from "../../queue/index.js";
