import type { GateCall, GateDecision, GuardAssessment } from "../../gate/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import type {
  ChildFlowRecord,
  ChildState,
  ChildStopOutcome,
  ChildUpdateOutcome,
  ToolExecutionContext,
  ToolResult,
} from "../../tools/index.js";

/** Assesses one call with the guard (command guard + exec policy, SSRF with DNS, path fence). */
export interface CallGuard {
  assess(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    ctx: ToolExecutionContext,
  ): Promise<GuardAssessment | undefined>;
}

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

/** Where every gate decision and execution goes (the hash-chained audit trail). */
export interface AuditSink {
  decision(entry: {
    payload: AgentJobPayload;
    tool: string;
    decision: GateDecision;
    capabilities: readonly string[];
    idempotencyKey: string;
  }): Promise<void>;
  execution(entry: {
    payload: AgentJobPayload;
    tool: string;
    risk: GateDecision["risk"];
    capabilities: readonly string[];
    result: ToolResult;
    durationMs: number;
    approvalSource: "human" | "auto";
    approver?: string | undefined;
    idempotencyKey: string;
    replay: boolean;
  }): Promise<void>;
}

/** Stores the full text of a truncated result so `read_spill` can page through it. */
export interface SpillStore {
  put(runId: string, key: string, text: string): Promise<string>;
}

export type { ChildFlowRecord, ChildState, ChildStopOutcome, ChildUpdateOutcome } from "../../tools/index.js";

/** Starts and reads child runs (implemented over the agent queue by the worker). */
export interface ChildrenPort {
  /** Enqueues the child; idempotent (the job id is the child's deterministic run id). */
  start(payload: AgentJobPayload, options?: { priority?: number }): Promise<void>;
  state(runId: string): Promise<ChildState>;
  /** A queued or finished child's payload (undefined once its job is gone). */
  payload(runId: string): Promise<AgentJobPayload | undefined>;
  /** Changes a child that has not started yet (atomically: a started one is left as it is). */
  update(runId: string, change: { task?: string; priority?: number }): Promise<ChildUpdateOutcome>;
  /** Stops a child: removes it while queued, else asks the running one to stop at its next step. */
  stop(runId: string): Promise<ChildStopOutcome>;
  /** Whether someone asked this run to stop (checked by the run loop before every step). */
  stopRequested(runId: string): Promise<boolean>;
  /**
   * Enqueues `steps` (in dependency order) as one BullMQ flow (see flowShape): a step starts only
   * after what it depends on completed, and a failed step fails those after it. Idempotent: the
   * record is written once (the first call wins); a later call starts nothing.
   */
  startFlow(record: ChildFlowRecord, steps: readonly AgentJobPayload[]): Promise<"started" | "exists">;
  flow(id: string): Promise<ChildFlowRecord | undefined>;
}
