import type { Cluster, Redis } from "ioredis";
import type { RunOutcome } from "../agent/index.js";
import { callKeyOf, isCancelJournalKey, type UsageTotals, usageOfRecords } from "../agent/index.js";
import {
  type ApprovalListing,
  type ApprovalRecord,
  type ApprovalStore,
  type DamagedRecord,
  effectiveStatus,
} from "../approvals/index.js";
import {
  type AuditRecord,
  AuditTrail,
  Journal,
  type OperatorAuditEntry,
  type ToolAuditEntry,
} from "../journal/index.js";
import {
  AgentJobPayload,
  type AgentQueue,
  isUnreadableJobData,
  openAgentQueue,
  type RunJob,
  RunReruns,
} from "../queue/index.js";
import { assertNever, type Clock, RunnerError, systemClock } from "../shared/index.js";
import { clipText, DEFAULT_VIEW_MAX_CHARS } from "./clip.js";
import { decodeRunCursor, encodeRunCursor, type RunCursor } from "./run-cursor.js";
import { matchesOutcome, outcomeText, type RunEndRecord, runEndOf } from "./run-outcome.js";
import { decodeJournal } from "./run-transcript.js";
import {
  type ApprovalView,
  type DecisionView,
  type OperatorActionView,
  type ParkedApproval,
  RUN_JOB_STATES,
  type RunDetail,
  type RunJobState,
  type RunListFilter,
  type RunOutcomeKind,
  type RunPage,
  type RunSummary,
  type RunUsageView,
} from "./run-view.js";

/** Default number of runs `listRuns` returns. */
export const DEFAULT_RUN_LIST_LIMIT = 50;
/** Largest `limit` accepted by `listRuns`. */
export const MAX_RUN_LIST_LIMIT = 1000;

/** Options for {@link RunInspector}. */
export interface RunInspectorOptions {
  /** A connected client (the CLI's, the HTTP server's): shared, never closed by the inspector. */
  redis: Redis | Cluster;
  /** `redis.key_prefix`. */
  keyPrefix: string;
  /** The approval store over the same keys (built from config by the caller). */
  approvals: ApprovalStore;
  /** Decides which pending approvals have expired. Default the system clock. */
  clock?: Clock;
  /** Longest text or JSON of one field in a view, characters. Default {@link DEFAULT_VIEW_MAX_CHARS}. */
  maxChars?: number;
}

/**
 * Read-only views of agent runs for operators (`echo-runner jobs`, the /admin dashboard), joined
 * from the four places a run leaves traces: the BullMQ job (state, payload, outcome), the journal
 * (model steps and tool-call results), the audit trail (every gate decision and execution) and the
 * approval store (what a person was asked). Shapes in run-view.ts. Never writes.
 */
export class RunInspector {
  readonly #queue: AgentQueue;
  readonly #journal: Journal;
  readonly #audit: AuditTrail;
  readonly #approvals: ApprovalStore;
  readonly #redis: Redis | Cluster;
  readonly #clock: Clock;
  readonly #maxChars: number;
  readonly #reruns: RunReruns;

  constructor(options: RunInspectorOptions) {
    this.#redis = options.redis;
    this.#queue = openAgentQueue(options.redis, options.keyPrefix);
    this.#journal = new Journal({ redis: options.redis, keyPrefix: options.keyPrefix });
    this.#audit = new AuditTrail({ redis: options.redis, keyPrefix: options.keyPrefix });
    this.#approvals = options.approvals;
    this.#clock = options.clock ?? systemClock;
    this.#maxChars = options.maxChars ?? DEFAULT_VIEW_MAX_CHARS;
    this.#reruns = new RunReruns(this.#queue, options.redis);
  }

  /** The most recent runs, newest first (the first page of {@link listRunPage}). */
  async listRuns(filter: RunListFilter = {}): Promise<RunSummary[]> {
    return (await this.listRunPage(filter)).runs;
  }

  /**
   * One page of runs, newest enqueued first (ties by run id), narrowed by `filter`. The order is by
   * when each run was enqueued, which never changes, so a cursor stays valid while runs are added:
   * a new run goes before the first page, never into a later one.
   */
  async listRunPage(filter: RunListFilter = {}): Promise<RunPage> {
    const limit = filter.limit ?? DEFAULT_RUN_LIST_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RUN_LIST_LIMIT) {
      throw new RunnerError(
        "CLI_USAGE",
        `limit must be a whole number from 1 to ${MAX_RUN_LIST_LIMIT}, got ${String(limit)}`,
      );
    }
    const after = filter.cursor === undefined ? undefined : decodeRunCursor(filter.cursor);
    const wanted: readonly RunJobState[] =
      filter.state === undefined ? RUN_JOB_STATES : filter.state === "parked" ? ["delayed"] : [filter.state];
    const batches = await Promise.all(
      wanted.map(async (state) => {
        const jobs = await this.#queue.getJobs([state], 0, -1, false);
        return jobs.map((job) => ({ job, state }));
      }),
    );
    const candidates = batches
      .flat()
      .filter(({ job }) => matchesCheapFilters(job, filter, after))
      .sort((a, b) => compareNewestFirst(a.job, b.job));
    const rows: RunSummary[] = [];
    let more = false;
    // Summaries read approvals (outcome, parked): build them a page at a time, in order, until full.
    for (let i = 0; i < candidates.length && !more; i += limit) {
      const chunk = candidates.slice(i, i + limit);
      const summaries = await Promise.all(chunk.map(({ job, state }) => this.#summary(job, state)));
      for (const summary of summaries) {
        if (filter.state === "parked" && summary.outcome !== "parked") continue;
        if (
          filter.outcome !== undefined &&
          !matchesOutcome(filter.outcome, summary.outcome, summary.outcomeText)
        )
          continue;
        if (rows.length === limit) {
          more = true;
          break;
        }
        rows.push(summary);
      }
    }
    const last = rows[rows.length - 1];
    return { runs: rows, nextCursor: more && last ? encodeRunCursor(last.created, last.runId) : null };
  }

  /**
   * Everything on record about one run: its job, the model transcript, the tool-call journal, the
   * audit trail's decisions and executions, and its approval requests. RUN_NOT_FOUND when none of
   * them knows the id.
   */
  async showRun(runId: string): Promise<RunDetail> {
    if (typeof runId !== "string" || runId === "" || runId.length > 512 || /[{}]/.test(runId)) {
      throw new RunnerError(
        "CLI_USAGE",
        `a run id is 1 to 512 characters without { or }, got ${JSON.stringify(runId)}`,
      );
    }
    const [job, snapshot, listing] = await Promise.all([
      this.#queue.getJob(runId),
      this.#journal.readRun(runId),
      this.#approvalsOf(runId),
    ]);
    const approvals = listing.records;
    if (!job && snapshot.records.size === 0 && approvals.length === 0 && listing.damaged.length === 0) {
      throw new RunnerError(
        "RUN_NOT_FOUND",
        `no run ${JSON.stringify(runId)}: the agent queue, the journal and the approval store do not know it (a finished job is kept for the last 1000 runs, a journal for 7 days); list runs with \`echo-runner jobs list\``,
        { data: { runId } },
      );
    }
    const notes: string[] = [];
    const payload = job ? AgentJobPayload.safeParse(job.data) : undefined;
    if (!job)
      notes.push(
        "the job is no longer in the queue (removed after it finished); showing what the journal, audit trail and approvals hold",
      );
    else if (isUnreadableJobData(job.data))
      notes.push(`unreadable: ${job.data.describe()}; its fields are not shown`);
    else if (!payload?.success) notes.push("the job's payload does not parse; its fields are not shown");
    for (const damaged of listing.damaged) notes.push(`${damaged.code}: ${damaged.message}`);
    const data = payload?.success ? payload.data : undefined;
    // Approval requests carry the trace id too, so decisions are found even after the job is gone.
    const traceId = data?.traceId ?? approvals[0]?.traceId ?? null;
    let decisions: DecisionView[] = [];
    let operatorActions: OperatorActionView[] = [];
    if (traceId === null)
      notes.push("no trace id known for this run, so its audit entries cannot be looked up");
    else {
      const records = (await this.#audit.readByTrace(traceId)).filter(
        (r) => r.entry.runId === undefined || r.entry.runId === runId,
      );
      decisions = records
        .filter((r): r is AuditRecord & { entry: ToolAuditEntry } => r.entry.kind !== "operator")
        .map(decisionView);
      operatorActions = records
        .filter((r): r is AuditRecord & { entry: OperatorAuditEntry } => r.entry.kind === "operator")
        .filter((r) => r.entry.executionId === runId)
        .map(operatorView);
    }
    const toolByKey = new Map<string, string>();
    for (const d of decisions) if (d.idempotencyKey) toolByKey.set(d.idempotencyKey, d.tool);
    for (const key of snapshot.records.keys()) if (isCancelJournalKey(key)) toolByKey.set(key, "(cancelled)");
    const { transcript, journal } = decodeJournal(snapshot, traceId, toolByKey, this.#maxChars);
    const now = this.#clock.now();
    const run = job ? await this.#summary(job, await jobState(job), listing) : null;
    // The journal is the source of truth (also for a run in progress or one whose job is gone).
    if (run) run.usage = usageView(usageOfRecords(snapshot.records));
    // BullMQ's processedOn is the latest pick-up (a resume after a park); the run began at its first claim.
    const firstClaim = Math.min(...[...snapshot.records.values()].map((r) => r.claimedAt));
    if (run && Number.isFinite(firstClaim) && (run.started === null || firstClaim < run.started))
      run.started = firstClaim;
    return {
      runId,
      run,
      task: clipText(data?.agent.task, this.#maxChars),
      model: data?.agent.model ?? null,
      unattended: data?.unattended ?? null,
      depth: data?.depth ?? null,
      transcript,
      journal,
      decisions,
      approvals: approvals.map((r) => approvalView(r, now, this.#maxChars)),
      damagedApprovals: listing.damaged,
      operatorActions,
      reruns: await this.#reruns.of(runId),
      notes,
    };
  }

  /** The run's job payload, or null when the job is gone or its payload does not parse. */
  async jobPayload(runId: string): Promise<AgentJobPayload | null> {
    const job = await this.#queue.getJob(runId);
    const parsed = job ? AgentJobPayload.safeParse(job.data) : null;
    return parsed?.success ? parsed.data : null;
  }

  /** Closes the inspector's queue handle (not the shared Redis connection). */
  async close(): Promise<void> {
    await this.#queue.close();
  }

  async #summary(job: RunJob, state: RunJobState, known?: ApprovalListing): Promise<RunSummary> {
    const runId = job.id ?? "";
    const parsed = AgentJobPayload.safeParse(job.data);
    const data = parsed.success ? parsed.data : undefined;
    const now = this.#clock.now();
    const listing = known ?? (await this.#approvalsOf(runId));
    // A damaged request counts as nothing here (not pending, not decided); the row names it instead.
    const approvals = listing.records.map((r) => ({
      record: r,
      status: effectiveStatus(r, now),
    }));
    const pending = approvals.filter((a) => a.status === "pending").map((a) => a.record);
    const {
      outcome,
      code,
      detail: stateDetail,
    } = outcomeOf(
      job,
      state,
      pending.length > 0,
      approvals.map((a) => ({ tool: a.record.tool, status: a.status })),
    );
    // A record whose data is not JSON is listed with the rest, saying so (it fails once picked up).
    // A delayed run whose only requests are damaged is held by one of them, not by a retry.
    const detail =
      outcome === "waiting" && state === "delayed" && listing.damaged.length > 0
        ? `delayed, and ${damagedText(listing.damaged)}`
        : (stateDetail ?? (isUnreadableJobData(job.data) ? `unreadable: ${job.data.describe()}` : null));
    return {
      runId,
      jobId: runId,
      state,
      outcome,
      failureCode: code,
      outcomeText: outcomeText(outcome, code),
      detail: clipText(detail, Math.min(this.#maxChars, 500)),
      agent: data?.agentId ?? null,
      traceId: data?.traceId ?? null,
      origin: data?.origin.kind ?? null,
      scheduleId: data?.origin.scheduleId ?? null,
      parentRunId: data?.parentExecutionId ?? null,
      rerunOf: data?.rerunOf ?? null,
      created: job.timestamp,
      started: job.processedOn ?? null,
      finished: job.finishedOn ?? null,
      attempts: job.attemptsMade,
      parkedApprovals: state === "completed" || state === "failed" ? [] : pending.map(parkedApproval),
      damagedApprovals: listing.damaged,
      usage: usageFromOutcome(job.returnvalue),
      landing: landingFromOutcome(job.returnvalue),
    };
  }

  /**
   * Every approval request of a run (the store indexes them by run), oldest first, and those that
   * cannot be read: one damaged request never hides the run or its other requests.
   */
  async #approvalsOf(runId: string): Promise<ApprovalListing> {
    const { records, damaged } = await this.#approvals.readMany(await this.#approvals.runRequestIds(runId));
    return { records: records.sort((a, b) => a.requestedAt - b.requestedAt), damaged };
  }
}

/** Damaged requests in a few words, for a row's detail. */
function damagedText(damaged: readonly DamagedRecord[]): string {
  const ids = damaged.map((d) => d.id).join(", ");
  return `approval request${damaged.length === 1 ? "" : "s"} ${ids} cannot be read (${damaged[0]?.code}): neither approved nor asked again; inspect or delete ${damaged.length === 1 ? "it" : "them"}`;
}

function landingFromOutcome(value: unknown): RunSummary["landing"] {
  const landing = (value as Partial<RunOutcome> | null | undefined)?.landing;
  if (!landing || typeof landing !== "object") return null;
  return { state: landing.state, changes: landing.changes, note: landing.note };
}

function usageView(totals: UsageTotals): RunUsageView {
  return {
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    cachedTokens: totals.cachedTokens,
    costUsd: totals.costUsd,
    activeSeconds: totals.activeMs / 1000,
    retries: totals.retries,
  };
}

function usageFromOutcome(value: unknown): RunUsageView | null {
  const usage = (value as Partial<RunOutcome> | null | undefined)?.usage;
  if (!usage || typeof usage !== "object") return null;
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedTokens: usage.cachedTokens,
    costUsd: usage.costUsd,
    activeSeconds: usage.activeSeconds,
    retries: usage.retries,
  };
}

async function jobState(job: RunJob): Promise<RunJobState> {
  const state = await job.getState();
  // BullMQ's `unknown` means the job vanished between the two reads; `waiting` is the closest truth.
  return (RUN_JOB_STATES as readonly string[]).includes(state) ? (state as RunJobState) : "waiting";
}

function outcomeOf(
  job: RunJob,
  state: RunJobState,
  parked: boolean,
  approvals: RunEndRecord["approvals"],
): { outcome: RunOutcomeKind; code: string | null; detail: string | null } {
  switch (state) {
    case "waiting":
    case "prioritized":
      return { outcome: "queued", code: null, detail: null };
    case "active":
      return { outcome: "running", code: null, detail: null };
    case "delayed":
      return parked
        ? { outcome: "parked", code: null, detail: null }
        : {
            outcome: "waiting",
            code: null,
            detail: "delayed: retry backoff, another worker's claim or a child run",
          };
    case "waiting-children":
      return { outcome: "waiting", code: null, detail: "waiting for child jobs" };
    case "completed": {
      const value = job.returnvalue as Partial<RunOutcome> | null;
      const end = runEndOf({
        state,
        status: typeof value?.status === "string" ? value.status : null,
        failedReason: null,
        approvals,
      });
      return {
        ...end,
        detail: typeof value?.finalAnswer === "string" ? value.finalAnswer : null,
      };
    }
    case "failed":
      return {
        ...runEndOf({ state, status: null, failedReason: job.failedReason || null, approvals }),
        detail: job.failedReason || null,
      };
    default:
      return assertNever(state);
  }
}

/** Newest enqueued first; ties (one millisecond) by run id, descending, so the order is total. */
function compareNewestFirst(a: RunJob, b: RunJob): number {
  if (a.timestamp !== b.timestamp) return b.timestamp - a.timestamp;
  const ida = a.id ?? "";
  const idb = b.id ?? "";
  return ida < idb ? 1 : ida > idb ? -1 : 0;
}

/** The filters a job's own fields decide (no approval read): payload fields, time, the cursor. */
function matchesCheapFilters(job: RunJob, filter: RunListFilter, after: RunCursor | undefined): boolean {
  if (after) {
    const id = job.id ?? "";
    if (job.timestamp > after.created || (job.timestamp === after.created && id >= after.runId)) return false;
  }
  if (filter.since !== undefined && job.timestamp < filter.since) return false;
  if (filter.until !== undefined && job.timestamp >= filter.until) return false;
  if (filter.agent === undefined && filter.owner === undefined && filter.schedule === undefined) return true;
  const parsed = AgentJobPayload.safeParse(job.data);
  if (!parsed.success) return false;
  const data = parsed.data;
  return (
    (filter.agent === undefined || data.agentId === filter.agent) &&
    (filter.owner === undefined || data.userId === filter.owner) &&
    (filter.schedule === undefined || data.origin.scheduleId === filter.schedule)
  );
}

function parkedApproval(record: ApprovalRecord): ParkedApproval {
  return {
    id: record.id,
    tool: record.tool,
    risk: record.risk,
    reason: record.reason,
    requestedAt: record.requestedAt,
    deadline: record.deadline,
  };
}

function decisionView(record: AuditRecord & { entry: ToolAuditEntry }): DecisionView {
  const { v: _v, capabilities: _c, ...rest } = record.entry;
  return { ...rest, streamId: record.id };
}

function operatorView(record: AuditRecord & { entry: OperatorAuditEntry }): OperatorActionView {
  const { v: _v, ...rest } = record.entry;
  return { ...rest, streamId: record.id };
}

function approvalView(record: ApprovalRecord, now: number, maxChars: number): ApprovalView {
  return {
    id: record.id,
    tool: record.tool,
    risk: record.risk,
    status: effectiveStatus(record, now),
    reason: clipText(record.reason, maxChars) ?? "",
    flags: record.flags,
    // The call's own key (a call that runs workspace files asks under one that adds their digests).
    idempotencyKey: callKeyOf(record.idempotencyKey),
    argsHash: record.argsHash,
    requestedAt: record.requestedAt,
    deadline: record.deadline,
    finishedAt: record.finishedAt,
    decisions: record.decisions,
    deliveredTo: record.deliveredTo,
  };
}
