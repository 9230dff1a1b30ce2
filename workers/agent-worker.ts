import { DelayedError, Job, Queue, UnrecoverableError, Worker } from "bullmq";
import type { Cluster, Redis } from "ioredis";
import {
  archiveRun,
  ParkSignal,
  type RunDeps,
  runAgent,
  shouldRetryRun,
  usageOfRecords,
} from "../src/agent/index.js";
import { meteredAuditSink, type RunnerMetrics } from "../src/metrics/index.js";
import { type AgentJobPayload, bullPrefix, parseAgentJobPayload } from "../src/queue/index.js";
import { isRunnerError, randomToken } from "../src/shared/index.js";

/** How soon a run whose wait ended while it was parking is woken, ms. */
const SELF_WAKE_MS = 100;

/** Options for {@link startAgentWorker}. */
export interface AgentWorkerOptions {
  /** A connection with maxRetriesPerRequest: null (BullMQ duplicates it for blocking calls). */
  connection: Redis | Cluster;
  keyPrefix: string;
  concurrency: number;
  deps: RunDeps;
  /** Identifies this process in claims (host:pid by default). */
  workerId?: string;
  /** BullMQ job lock, ms (default 30 s). A crashed worker's job is picked up again after it lapses. */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for, ms (default 30 s). */
  stalledIntervalMs?: number;
  /** Called once a run has ended for good (completed, or failed without further retries). */
  onRunFinished?: (payload: AgentJobPayload) => Promise<void>;
  /** Called when a run parks (it may resume on another worker): release what it holds here. */
  onRunParked?: (payload: AgentJobPayload) => Promise<void>;
  /** Counts runs, parks, retries and (through the audit sink) tool calls; none when omitted. */
  metrics?: RunnerMetrics;
}

/**
 * The processor of one agent job. Invalid payloads fail at once without retries; a ParkSignal moves
 * the job to delayed (no worker slot held) and the job replays from its journal when it wakes.
 */
export function agentProcessor(options: AgentWorkerOptions) {
  const workerId = options.workerId ?? `${process.pid}`;
  const { metrics } = options;
  const deps: RunDeps = metrics
    ? {
        ...options.deps,
        audit: meteredAuditSink(
          options.deps.audit,
          metrics,
          (name) => options.deps.registry.get(name) !== undefined,
        ),
      }
    : options.deps;
  const finished = async (payload: AgentJobPayload) => {
    // Archived first: a failing hook must not cost session_search the transcript.
    await archiveRun(options.deps, payload).catch((e: unknown) =>
      options.deps.logger.warn({ runId: payload.runId, err: String(e) }, "archiving the transcript failed"),
    );
    if (metrics) {
      // Summed from the journal, so a run that failed counts what it used too.
      const totals = await options.deps.journal
        .readRun(payload.runId)
        .then((snapshot) => usageOfRecords(snapshot.records))
        .catch(() => undefined);
      if (totals && totals.responses > 0) {
        await metrics.runUsage(
          payload.runId,
          { agent: payload.agentId, model: payload.agent.model },
          { ...totals, activeSeconds: totals.activeMs / 1000 },
        );
      }
    }
    await options.onRunFinished?.(payload);
  };
  return async (job: Job, token?: string) => {
    let payload: ReturnType<typeof parseAgentJobPayload>;
    try {
      payload = parseAgentJobPayload(job.data);
    } catch (err) {
      await metrics?.runEnded(job.id ?? "invalid-payload", "failed");
      throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
    }
    await metrics?.jobStarted(job.id ?? payload.runId);
    const owner = `${workerId}:${job.id}:${job.attemptsStarted}:${randomToken(6)}`;
    const log = options.deps.logger.child({
      traceId: payload.traceId,
      executionId: payload.runId,
      jobId: job.id,
    });
    try {
      const outcome = await runAgent({
        payload,
        jobId: job.id ?? payload.runId,
        owner,
        deps: { ...deps, logger: log },
      });
      log.info(
        { status: outcome.status, steps: outcome.steps, toolCalls: outcome.toolCalls },
        "run finished",
      );
      await metrics?.runEnded(payload.runId, outcome.status);
      await finished(payload).catch((e: unknown) => log.warn({ err: String(e) }, "run-finished hook failed"));
      return outcome;
    } catch (err) {
      if (err instanceof ParkSignal) {
        log.info({ wakeAt: err.wakeAt, why: err.why }, "run parked");
        await metrics?.runParked(job.id ?? payload.runId, err.wakeAt);
        await options
          .onRunParked?.(payload)
          .catch((e: unknown) => log.warn({ err: String(e) }, "run-parked hook failed"));
        await job.moveToDelayed(err.wakeAt, token);
        if (err.ready && (await err.ready().catch(() => false))) {
          // What it waits for came while it was parking (its wake-up found no delayed job): wake it
          // now. Re-delayed by a moment rather than promoted, so the job cannot start on another slot
          // of this worker before BullMQ has finished releasing it here (that would drop the new
          // run's lock renewal). Not delayed any more (woken meanwhile): nothing to do.
          await job.changeDelay(SELF_WAKE_MS).catch(() => undefined);
        }
        throw new DelayedError();
      }
      if (!shouldRetryRun(err)) {
        const message = isRunnerError(err) ? `${err.code}: ${err.message}` : String(err);
        log.error({ err: message }, "run failed, not retryable");
        await metrics?.runEnded(payload.runId, "failed");
        await finished(payload).catch(() => undefined);
        throw new UnrecoverableError(message);
      }
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      log.warn({ err: err instanceof Error ? err.message : String(err), lastAttempt }, "run attempt failed");
      if (lastAttempt) await finished(payload).catch(() => undefined);
      await (lastAttempt ? metrics?.runEnded(payload.runId, "failed") : metrics?.runRetrying());
      throw err;
    }
  };
}

/** Starts a BullMQ worker on the `agent` queue. */
export function startAgentWorker(options: AgentWorkerOptions): Worker {
  const queue = new Queue("agent", { connection: options.connection, prefix: bullPrefix(options.keyPrefix) });
  const worker = new Worker("agent", agentProcessor(options), {
    connection: options.connection,
    prefix: bullPrefix(options.keyPrefix),
    concurrency: options.concurrency,
    // A crash is expected, not a failure: the journal makes picking a stalled job up again safe, so
    // a job is never failed for having stalled (BullMQ's default gives up after one stall).
    maxStalledCount: 1000,
    ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
    ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
  });
  // A child's end wakes its parent at once (parked waiting for it), once BullMQ has recorded the end:
  // a parent woken earlier would still find the child running and park again. A parent not parked
  // yet finds the end itself (its park's ready check); one lost in a crash re-checks on its own.
  const wakeParent = (job: Job | undefined) => {
    const parentId = (job?.data as { parentExecutionId?: unknown } | undefined)?.parentExecutionId;
    if (typeof parentId !== "string") return;
    // Not delayed any more (already woken or finished): nothing to do.
    void Job.fromId(queue, parentId)
      .then((parent) => parent?.promote())
      .catch(() => undefined);
  };
  worker.on("completed", wakeParent);
  // Only a failure for good (finishedOn set): a retried child is not over yet.
  worker.on("failed", (job) => (job?.finishedOn ? wakeParent(job) : undefined));
  worker.on("closed", () => void queue.close().catch(() => undefined));
  return worker;
}
