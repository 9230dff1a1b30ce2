import type { FinishReason, ModelUsage } from "../agent/index.js";
import type { ApprovalStatus, DamagedRecord, DecisionEntry } from "../approvals/index.js";
import type { OperatorAuditEntry, ToolAuditEntry } from "../journal/index.js";
import type { RunOrigin } from "../queue/index.js";
import { RUN_END_OUTCOMES, RUN_PROGRESS } from "./run-outcome.js";

/**
 * The shapes an operator sees of agent runs: `echo-runner jobs list | show` and the /admin dashboard
 * print these (the CLI's `--json` is exactly these objects). Times are ms since the epoch; every
 * free-text or result field is sanitised (secret-named fields and credentials masked) and cut to the
 * inspector's `maxChars`, so a view never carries a secret or an unbounded blob.
 */

/** BullMQ states a run's job can be in. A parked run (waiting for a person or a child) is `delayed`. */
export const RUN_JOB_STATES = [
  "waiting",
  "prioritized",
  "active",
  "delayed",
  "waiting-children",
  "completed",
  "failed",
] as const;
export type RunJobState = (typeof RUN_JOB_STATES)[number];

/** What `listRuns({ state })` accepts: a job state, or `parked` (delayed with a pending approval). */
export const RUN_STATE_FILTERS = [...RUN_JOB_STATES, "parked"] as const;
export type RunStateFilter = (typeof RUN_STATE_FILTERS)[number];

/**
 * Where a run stands, in an operator's words: while it has not ended, one of {@link RUN_PROGRESS}
 * (`queued` for a worker, `running`, `parked` on a pending approval with no worker slot used,
 * `waiting` on retry backoff, another worker's claim or a child run); once it has, one of
 * {@link RUN_END_OUTCOMES} (run-outcome.ts).
 */
export const RUN_OUTCOMES = [...RUN_PROGRESS, ...RUN_END_OUTCOMES] as const;

/**
 * What a run consumed, summed from its journalled model responses (its sub-agents are runs of their
 * own). Cost is at the price configured when each response arrived (0 without `models.<name>.price`).
 */
export interface RunUsageView {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  /** Active time: between model responses, without the time parked for a person or a child. */
  activeSeconds: number;
  /** Transient model failures retried. */
  retries: number;
}
export type RunOutcomeKind = (typeof RUN_OUTCOMES)[number];

/** What `listRunPage` narrows runs by; every field optional, all given must hold. */
export interface RunListFilter {
  /** A job state, or `parked`. */
  state?: RunStateFilter;
  /** An outcome word (`failed` matches every failure) or `failed: <code>`. */
  outcome?: string;
  /** The schedule that fired the run. */
  schedule?: string;
  agent?: string;
  /** Whom the run is for (its payload's user: a schedule's owner, the operator who started it). */
  owner?: string;
  /** Enqueued at or after this instant, ms. */
  since?: number;
  /** Enqueued before this instant, ms. */
  until?: number;
  /** Where the previous page ended (its `nextCursor`). */
  cursor?: string;
  /** Runs per page. Default 50, at most 1000. */
  limit?: number;
}

/** One page of runs, and the cursor of the next (null on the last page). */
export interface RunPage {
  runs: RunSummary[];
  nextCursor: string | null;
}

/** A pending approval that holds a run, as a listing shows it. */
export interface ParkedApproval {
  id: string;
  tool: string;
  risk: string;
  /** The gate's reason, shown to approvers. */
  reason: string;
  requestedAt: number;
  /** After this instant the request expires (and the call is denied). */
  deadline: number;
}

/** One row of `listRuns`. */
export interface RunSummary {
  /** The run's execution id (also its BullMQ job id). */
  runId: string;
  jobId: string;
  state: RunJobState;
  outcome: RunOutcomeKind;
  /** A failed run's code (an error code, or `max_steps`, `budget_exhausted`, `truncated`, `refused`); else null. */
  failureCode: string | null;
  /** The outcome as every view prints it: `failed: <code>` for a failure, else the outcome. */
  outcomeText: string;
  /** Final answer (completed / max_steps) or failure reason (failed); null otherwise. Cut. */
  detail: string | null;
  /** `agentId` of the payload; null when the payload does not parse. */
  agent: string | null;
  traceId: string | null;
  origin: RunOrigin | null;
  scheduleId: string | null;
  /** The parent run of a sub-agent run, or null for a top-level run. */
  parentRunId: string | null;
  /** The run this one is a rerun of (`jobs rerun`), or null. */
  rerunOf: string | null;
  /** When the job was enqueued. */
  created: number;
  /** When the run first started (its first attempt), or null before any. */
  started: number | null;
  finished: number | null;
  /** Attempts BullMQ counted as made (a park is not an attempt). */
  attempts: number;
  /** Pending approvals of this run (empty for finished runs). */
  parkedApprovals: ParkedApproval[];
  /**
   * Approval requests of this run that cannot be read (APPROVAL_CORRUPT), any state: shown so, never
   * counted as pending or decided.
   */
  damagedApprovals: DamagedRecord[];
  /**
   * What the run consumed: a finished run's from its outcome, a run in progress's from its journal
   * (shown by `jobs show`); null when unknown (a listed run in progress, a run from before usage).
   */
  usage: RunUsageView | null;
  /** What became of a finished run's workspace layer (landed, or kept unlanded with why); null: no layer. */
  landing?: { state: "landed" | "kept"; changes: number; note: string } | null;
}

/** One tool call the model asked for in one step, joined to its journal key. */
export interface TranscriptToolCall {
  /** Call id chosen by the model. */
  id: string;
  name: string;
  /** Arguments as the model sent them (sanitised; a cut JSON string when longer than maxChars). */
  arguments: unknown;
  /** 0-based index of the call within the run: part of its idempotency key. */
  callIndex: number;
  /** The call's idempotency key: its entry in `journal`, its `idempotencyKey` in `decisions`. */
  idempotencyKey: string | null;
}

/** One model turn, read from the journal (`model:<step>`). */
export interface TranscriptStep {
  step: number;
  /** `in_flight`: the model call is claimed but not answered (or the worker died during it). */
  status: "completed" | "in_flight";
  /** The assistant's text (the final answer on the last step). Cut. */
  content: string | null;
  finishReason: FinishReason | null;
  usage: ModelUsage | null;
  toolCalls: TranscriptToolCall[];
}

/** Journal status as an operator needs it: a started claim whose lease lapsed is `in_doubt`. */
export const JOURNAL_VIEW_STATUSES = ["completed", "started", "in_doubt"] as const;
export type JournalViewStatus = (typeof JOURNAL_VIEW_STATUSES)[number];

/** One tool-call entry of the run's journal (model steps are in `transcript`). */
export interface JournalEntryView {
  /** Idempotency key (`<key>-in-doubt` for a person's answer to "did it run?"). */
  key: string;
  /** The tool, when the transcript or the audit trail names the call; null otherwise. */
  tool: string | null;
  callIndex: number | null;
  status: JournalViewStatus;
  attempt: number;
  owner: string;
  claimedAt: number;
  leaseUntil: number;
  completedAt: number | null;
  /** The recorded result (sanitised; a cut JSON string when longer than maxChars); null unless completed. */
  result: unknown;
}

/**
 * One audit entry of the run: a gate decision (`verdict`, `step` 1–11, or 0 for a policy layer) or
 * an execution (`outcome`, `durationMs`, `isReplay`). The stored entry minus its version and
 * capabilities, plus the stream id.
 */
export type DecisionView = ViewOf<ToolAuditEntry>;

/** An operator's action on the run (cancel, retry, rerun), from the audit trail. */
export type OperatorActionView = Omit<OperatorAuditEntry, "v"> & { streamId: string };
// Distributes over the union, so `kind` still narrows to `verdict` or `outcome`.
type ViewOf<E> = E extends unknown ? Omit<E, "v" | "capabilities"> & { streamId: string } : never;

/** An approval request of the run, any status. */
export interface ApprovalView {
  id: string;
  tool: string;
  risk: string;
  /** Status now: a pending request past its deadline shows as `expired`. */
  status: ApprovalStatus;
  reason: string;
  flags: string[];
  idempotencyKey: string;
  argsHash: string;
  requestedAt: number;
  deadline: number;
  finishedAt: number | null;
  decisions: DecisionEntry[];
  /** Notification targets reached ("email:<approver>", "log:<approver>", "webhook"). */
  deliveredTo: string[];
}

/** What `showRun` returns. */
export interface RunDetail {
  runId: string;
  /** The job's row, or null when BullMQ no longer holds the job (removed after keep-finished). */
  run: RunSummary | null;
  /** From the payload; null when the job is gone or its payload does not parse. */
  task: string | null;
  model: string | null;
  unattended: boolean | null;
  /** Nesting depth: 0 for a top-level run. */
  depth: number | null;
  transcript: TranscriptStep[];
  journal: JournalEntryView[];
  decisions: DecisionView[];
  approvals: ApprovalView[];
  /** Its approval requests that cannot be read (APPROVAL_CORRUPT); each also has a note. */
  damagedApprovals: DamagedRecord[];
  /** Operators' cancels, retries and reruns of this run, from the audit trail, oldest first. */
  operatorActions: OperatorActionView[];
  /** Runs started as reruns of this one (`jobs rerun`), oldest first. */
  reruns: string[];
  /** What could not be shown and why (job removed, no trace id to read decisions by). */
  notes: string[];
}
