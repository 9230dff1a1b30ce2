import type { Cluster, Redis } from "ioredis";
import type { ApprovalStore } from "../../approvals/index.js";
import { AuditTrail, Journal, type OperatorAction } from "../../journal/index.js";
import {
  AgentJobPayload,
  type AgentQueue,
  type CancelRequest,
  enqueueAgentRun,
  findRunJob,
  isCancelledReason,
  type OperatorChannel,
  openAgentQueue,
  RunCancels,
  type RunJob,
  RunReruns,
  retryFailedJob,
} from "../../queue/index.js";
import { type Clock, type IdFactory, RunnerError, randomId, systemClock } from "../../shared/index.js";
import { cancelJournalKey } from "./cancel-record.js";

/** Who acts on a run, and from where. */
export interface OperatorActor {
  /** The operator's id: an `approvers` entry (API token owner, /admin session, CLI `operator`). */
  readonly id: string;
  readonly via: OperatorChannel;
}

/** What {@link RunOperations.cancel} did. */
export interface CancelResult {
  readonly runId: string;
  /** `cancelled`: ended now; `cancelling`: a worker holds it and stops it (see waitUntilEnded). */
  readonly status: "cancelled" | "cancelling";
  /** The job state the cancel found. */
  readonly from: string;
  /** Approval requests withdrawn (their links now say cancelled). */
  readonly withdrawn: readonly string[];
}

/** What {@link RunOperations.retry} and {@link RunOperations.rerun} did. */
export interface RestartResult {
  /** The run that runs now: the same id for a retry, a new one for a rerun. */
  readonly runId: string;
  readonly from: string;
}

/** Options for {@link RunOperations}. */
export interface RunOperationsOptions {
  /** A connected client, shared (never closed here). */
  redis: Redis | Cluster;
  /** `redis.key_prefix`. */
  keyPrefix: string;
  /** The approval store over the same keys (pending approvals are withdrawn through it). */
  approvals: Pick<ApprovalStore, "cancelRun" | "forgetCancelled">;
  /** The audit trail operator actions are appended to; default one over the same keys. */
  audit?: AuditTrail;
  clock?: Clock;
  /** New run ids for reruns; default random UUIDs. */
  newRunId?: IdFactory;
}

const CANCELLABLE = ["waiting", "prioritized", "active", "delayed", "waiting-children", "paused"];

/**
 * Cancel, retry and rerun of agent runs, for operators (CLI, JSON API, /admin): the one place these
 * are decided, so every surface refuses the same states with the same words and audits the same way.
 * A cancel ends a run nobody runs at once; a running run is stopped by its worker (announced on the
 * queue's events), which stops its processes and calls {@link finishCancel}.
 */
export class RunOperations {
  readonly #queue: AgentQueue;
  readonly #cancels: RunCancels;
  readonly #reruns: RunReruns;
  readonly #journal: Journal;
  readonly #audit: AuditTrail;
  readonly #approvals: Pick<ApprovalStore, "cancelRun" | "forgetCancelled">;
  readonly #clock: Clock;
  readonly #newRunId: IdFactory;

  constructor(options: RunOperationsOptions) {
    this.#queue = openAgentQueue(options.redis, options.keyPrefix);
    this.#cancels = new RunCancels(this.#queue, options.redis);
    this.#reruns = new RunReruns(this.#queue, options.redis);
    this.#journal = new Journal({ redis: options.redis, keyPrefix: options.keyPrefix });
    this.#audit = options.audit ?? new AuditTrail({ redis: options.redis, keyPrefix: options.keyPrefix });
    this.#approvals = options.approvals;
    this.#clock = options.clock ?? systemClock;
    this.#newRunId = options.newRunId ?? (() => `rerun-${randomId()}`);
  }

  /** Cancels a waiting, running, parked or retry-scheduled run; RUN_NOT_CANCELLABLE once it ended. */
  async cancel(runId: string, actor: OperatorActor, reason = ""): Promise<CancelResult> {
    const job = await this.#job(runId);
    const state = await stateOf(job);
    if (!CANCELLABLE.includes(state)) throw notCancellable(runId, state, job);
    const request: CancelRequest = { by: actor.id, via: actor.via, reason, at: this.#clock.now() };
    // The request first: a worker that takes or wakes the job from now on finds it.
    await this.#cancels.request(runId, request);
    const outcome = await this.#cancels.cancelQueued(runId, request, this.#clock.now());
    const payload = payloadOf(job);
    let result: CancelResult;
    switch (outcome) {
      case "cancelled":
        result = {
          runId,
          status: "cancelled",
          from: state,
          withdrawn: await this.finishCancel(runId, request),
        };
        break;
      case "active":
      case "defer": {
        await this.#cancels.announce(runId);
        // A parked workflow step: woken now, so its worker fails it instead of at its deadline.
        if (state === "delayed") await job.promote().catch(() => undefined);
        // Its links answer "cancelled" now, whatever the worker does next.
        const withdrawn = await this.#approvals.cancelRun(runId);
        result = { runId, status: "cancelling", from: state, withdrawn };
        break;
      }
      case "completed":
      case "failed":
        await this.#cancels.clear(runId);
        throw notCancellable(runId, outcome, job);
      case "missing":
        await this.#cancels.clear(runId);
        throw notFound(runId);
    }
    await this.#record("cancel", runId, payload?.traceId ?? runId, actor, reason, { from: state });
    return result;
  }

  /**
   * What ends every cancel, wherever it happens (here for a job nobody held, in the worker for a
   * running one): pending approvals withdrawn, who and why in the run's journal, the request gone.
   * Returns the withdrawn approval ids.
   */
  async finishCancel(runId: string, request: CancelRequest): Promise<string[]> {
    const withdrawn = await this.#approvals.cancelRun(runId);
    const key = cancelJournalKey(request.at);
    const owner = `operator:${request.by}`;
    const claim = await this.#journal.claim({ runId, key, owner, leaseMs: 60_000 });
    if (claim.state === "claimed") {
      await this.#journal.complete({
        runId,
        key,
        owner,
        result: { cancelled: true, by: request.by, via: request.via, reason: request.reason, at: request.at },
      });
    }
    await this.#cancels.clear(runId);
    return withdrawn;
  }

  /** The pending cancel request of a run, or null (what a worker checks before and while it runs). */
  cancelRequested(runId: string): Promise<CancelRequest | null> {
    return this.#cancels.requested(runId);
  }

  /**
   * Waits until a cancelled run has ended (its worker stopped it), up to `timeoutMs`; returns the
   * job state then. A run that parked or went back to waiting meanwhile is ended here.
   */
  async waitUntilEnded(runId: string, timeoutMs: number): Promise<string> {
    const deadline = this.#clock.now() + timeoutMs;
    for (;;) {
      const job = await findRunJob(this.#queue, runId);
      if (!job) return "missing";
      const state = await stateOf(job);
      if (state === "failed" || state === "completed") return state;
      const request = await this.#cancels.requested(runId);
      if (request && state !== "active") {
        const outcome = await this.#cancels.cancelQueued(runId, request, this.#clock.now());
        if (outcome === "cancelled") {
          await this.finishCancel(runId, request);
          return "failed";
        }
      }
      if (this.#clock.now() >= deadline) return state;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Runs a failed or cancelled run again under the same id, from its journal: completed calls are
   * replayed, not repeated. RUN_NOT_RETRYABLE in any other state.
   */
  async retry(runId: string, actor: OperatorActor, reason = ""): Promise<RestartResult> {
    const job = await this.#job(runId);
    const state = await stateOf(job);
    if (state !== "failed") {
      throw new RunnerError(
        "RUN_NOT_RETRYABLE",
        `run ${runId} is ${describeState(state, job)}; retry takes a failed or cancelled run${state === "completed" ? " (use `jobs rerun` for a new run)" : " (cancel it first)"}`,
        { data: { runId, state } },
      );
    }
    const from = isCancelledReason(job.failedReason) ? "cancelled" : "failed";
    await this.#cancels.clear(runId);
    // Approvals the cancel withdrew are asked again when the run reaches their calls.
    await this.#approvals.forgetCancelled(runId);
    // The failed attempt is over: what it left claimed is in doubt now, not held for a lease.
    await this.#journal.lapseClaims(runId);
    await retryFailedJob(job);
    await this.#record("retry", runId, payloadOf(job)?.traceId ?? runId, actor, reason, { from });
    return { runId, from };
  }

  /**
   * Starts a new run with the run's agent, task and schedule context, linked both ways
   * (`rerunOf` in its payload, the original's rerun list). RUN_PAYLOAD_GONE when the job is gone.
   */
  async rerun(runId: string, actor: OperatorActor, reason = ""): Promise<RestartResult> {
    const job = await this.#job(runId);
    const payload = payloadOf(job);
    if (!payload) {
      throw new RunnerError(
        "RUN_PAYLOAD_GONE",
        `run ${runId}'s job payload does not parse, so its agent and task are unknown; start a new run with \`echo-runner run\``,
        { data: { runId } },
      );
    }
    const newRunId = this.#newRunId();
    const { dependsOn: _d, ...rest } = payload;
    await enqueueAgentRun(this.#queue, {
      ...rest,
      runId: newRunId,
      // A new trace: the idempotency keys (and approval ids) of the new run are its own.
      traceId: newRunId,
      createdAt: this.#clock.now(),
      rerunOf: runId,
    });
    await this.#reruns.add(runId, newRunId);
    await this.#record("rerun", runId, payload.traceId, actor, reason, { rerun: newRunId });
    return { runId: newRunId, from: await stateOf(job) };
  }

  /** Closes the queue handle (not the shared connection). */
  async close(): Promise<void> {
    await this.#queue.close();
  }

  async #job(runId: string): Promise<RunJob> {
    if (typeof runId !== "string" || runId === "" || runId.length > 512 || /[{}]/.test(runId)) {
      throw new RunnerError(
        "CLI_USAGE",
        `a run id is 1 to 512 characters without { or }, got ${JSON.stringify(runId)}`,
      );
    }
    const job = await findRunJob(this.#queue, runId);
    if (!job) throw notFound(runId);
    return job;
  }

  async #record(
    action: OperatorAction,
    runId: string,
    traceId: string,
    actor: OperatorActor,
    reason: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    await this.#audit.append({
      kind: "operator",
      traceId,
      executionId: runId,
      runId,
      action,
      by: actor.id,
      via: actor.via,
      reason,
      detail,
    });
  }
}

function payloadOf(job: RunJob): AgentJobPayload | undefined {
  const parsed = AgentJobPayload.safeParse(job.data);
  return parsed.success ? parsed.data : undefined;
}

async function stateOf(job: RunJob): Promise<string> {
  return job.getState();
}

function describeState(state: string, job: RunJob): string {
  if (state === "failed" && isCancelledReason(job.failedReason)) return "cancelled";
  if (state === "delayed") return "parked or waiting to retry";
  if (state === "active") return "running";
  return state;
}

function notCancellable(runId: string, state: string, job: RunJob): RunnerError {
  const now = describeState(state, job);
  const next =
    now === "completed"
      ? "use `jobs rerun` to run it again"
      : "use `jobs retry` to resume it or `jobs rerun`";
  return new RunnerError(
    "RUN_NOT_CANCELLABLE",
    `run ${runId} is already ${now}; cancel takes a waiting, running, parked or retry-scheduled run (${next})`,
    { data: { runId, state: now } },
  );
}

function notFound(runId: string): RunnerError {
  return new RunnerError(
    "RUN_NOT_FOUND",
    `no run ${JSON.stringify(runId)} in the agent queue (a finished job is kept for the last retention.finished_jobs runs); list runs with \`echo-runner jobs list\``,
    { data: { runId } },
  );
}
