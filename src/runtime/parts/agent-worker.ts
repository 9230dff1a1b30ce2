import {
  archiveRun,
  ParkSignal,
  type RunDeps,
  runAgent,
  shouldRetryRun,
  usageOfRecords,
} from "../../agent/index.js";
import { meteredAuditSink, type RunnerMetrics } from "../../metrics/index.js";
import {
  type AgentJobPayload,
  type CancelRequest,
  cancelledReason,
  failForGood,
  parkJob,
  parseAgentJobPayload,
  type RedisConnection,
  type RunJob,
  type RunWorker,
  startRunWorker,
  WorkerRecords,
  watchCancels,
} from "../../queue/index.js";
import { isRunnerError, otelTraceId, randomToken } from "../../shared/index.js";

/** Options for {@link startAgentWorker}. */
export interface AgentWorkerOptions {
  /** A connection with maxRetriesPerRequest: null (BullMQ duplicates it for blocking calls). */
  connection: RedisConnection;
  keyPrefix: string;
  concurrency: number;
  /** Finished runs BullMQ keeps, completed and failed each (retention.finished_jobs). Default 1000. */
  keepFinished?: number;
  deps: RunDeps;
  /** Identifies this process in claims (host:pid by default). */
  workerId?: string;
  /** BullMQ job lock, ms (default 30 s). A crashed worker's job is picked up again after it lapses. */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for, ms (default 30 s). */
  stalledIntervalMs?: number;
  /**
   * Where this machine's workers record themselves (`<data dir>/workers`): a worker that starts
   * takes back at once the runs of a recorded worker whose process is gone (crashed, killed, the
   * machine rebooted) instead of waiting 30–60 s for BullMQ's lock and stall check. None: no records.
   */
  workerRecordsDir?: string;
  /**
   * Called once a run has ended for good (completed, failed without further retries, cancelled),
   * with how it ended (a failure's code and message feed the alerts).
   */
  onRunFinished?: (payload: AgentJobPayload, end: RunEnd) => Promise<void>;
  /** Called when a run parks (it may resume on another worker): release what it holds here. */
  onRunParked?: (payload: AgentJobPayload) => Promise<void>;
  /**
   * Stops every process the run started on this worker (background `process` starts, backgrounded
   * exec) and returns how many were still alive. Called after every attempt, however it ended:
   * completed, failed, retrying, cancelled or parked (a parked run holds no process and no slot).
   */
  releaseRun?: (runId: string) => Promise<number>;
  /** Counts runs, parks, retries and (through the audit sink) tool calls; none when omitted. */
  metrics?: RunnerMetrics;
  /**
   * Operators' cancels (RunOperations): a run with a cancel request is stopped — at its start, when
   * it would park, or at once while it runs (announced on the queue's events) — and ended cancelled.
   * None: runs are not cancellable by operators on this worker.
   */
  cancels?: RunCancelPort;
}

/** How a run ended for good: completed (whatever its outcome), failed (with its code, if any), cancelled. */
export type RunEnd =
  | { status: "completed" }
  | { status: "failed"; code: string | null; message: string }
  | { status: "cancelled" };

/** The end of a run that failed with `err`: its RunnerError code (null for others) and message. */
function failedEnd(err: unknown): RunEnd {
  return isRunnerError(err)
    ? { status: "failed", code: err.code, message: err.message }
    : { status: "failed", code: null, message: err instanceof Error ? err.message : String(err) };
}

/** What the worker needs of an operator's cancel (implemented by RunOperations). */
export interface RunCancelPort {
  cancelRequested(runId: string): Promise<CancelRequest | null>;
  /** Withdraws the run's approvals and journals who cancelled it and why. */
  finishCancel(runId: string, request: CancelRequest): Promise<string[]>;
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
  const finished = async (payload: AgentJobPayload, end: RunEnd) => {
    options.deps.tracer?.runEnded(
      payload,
      end.status === "failed" ? { status: "failed", code: end.code } : end,
    );
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
    await options.onRunFinished?.(payload, end);
  };
  return async (job: RunJob, token?: string, signal?: AbortSignal) => {
    let payload: ReturnType<typeof parseAgentJobPayload>;
    try {
      payload = parseAgentJobPayload(job.data);
    } catch (err) {
      await metrics?.runEnded(job.id ?? "invalid-payload", "failed");
      // Kept as the job's failure reason (`jobs show`): the code first, as for every run failure.
      const reason = isRunnerError(err) ? `${err.code}: ${err.message}` : String(err);
      options.deps.logger.error({ jobId: job.id, err: reason }, "run failed: its job payload is not usable");
      throw failForGood(reason);
    }
    await metrics?.jobStarted(job.id ?? payload.runId);
    // Unique per attempt within the run's journal (the only place it is stored and compared): the
    // run's id is the journal's key, so repeating it in every claim state cost ~30 bytes each
    // (memory per parked run). Attempts of one job differ in attemptsStarted, and the random part sets apart two
    // processes that share a pid (containers).
    const owner = `${workerId}:${job.attemptsStarted}:${randomToken(6)}`;
    const log = options.deps.logger.child({
      traceId: payload.traceId,
      // The OpenTelemetry trace id of the run's spans (docs/OPERATING.md "Traces"), to find them from a log line.
      trace_id: otelTraceId(payload.traceId),
      executionId: payload.runId,
      jobId: job.id,
    });
    const release = async () => {
      const stopped = await options.releaseRun?.(payload.runId).catch((e: unknown) => {
        log.error({ err: String(e) }, "stopping the run's processes failed");
        return 0;
      });
      if (stopped) await metrics?.processesReaped("run_ended", stopped);
    };
    // Ends the run cancelled: its processes are stopped (release ran or runs now), its approvals
    // withdrawn, the cancel journalled; the job fails for good with the cancel as its reason.
    const endCancelled = async (request: CancelRequest): Promise<Error> => {
      await options.cancels?.finishCancel(payload.runId, request);
      log.info({ by: request.by, via: request.via, reason: request.reason }, "run cancelled");
      await metrics?.runEnded(payload.runId, "cancelled");
      await finished(payload, { status: "cancelled" }).catch(() => undefined);
      return failForGood(cancelledReason(request));
    };
    const cancelled = async (): Promise<CancelRequest | null> =>
      (await options.cancels?.cancelRequested(payload.runId).catch(() => null)) ?? null;
    const before = await cancelled();
    if (before) throw await endCancelled(before);
    // The in-flight call's process tree stops at once, not when the call returns.
    const onAbort = () => void release();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      let outcome: Awaited<ReturnType<typeof runAgent>>;
      try {
        outcome = await runAgent({
          payload,
          jobId: job.id ?? payload.runId,
          owner,
          deps: { ...deps, logger: log },
          ...(signal ? { signal } : {}),
        });
      } finally {
        signal?.removeEventListener("abort", onAbort);
        await release();
      }
      log.info(
        { status: outcome.status, steps: outcome.steps, toolCalls: outcome.toolCalls },
        "run finished",
      );
      await metrics?.runEnded(payload.runId, outcome.status);
      await finished(payload, { status: "completed" }).catch((e: unknown) =>
        log.warn({ err: String(e) }, "run-finished hook failed"),
      );
      return outcome;
    } catch (caught) {
      // Cancelled while it ran (or just before it parked): ended here, not parked or retried.
      const request = signal?.aborted || caught instanceof ParkSignal ? await cancelled() : null;
      if (request) throw await endCancelled(request);
      // Interrupted by a cancel that was withdrawn meanwhile (a retry): an ordinary, retried stop.
      const err =
        signal?.aborted && isRunnerError(caught, "RUN_CANCELLED")
          ? new Error(`run ${payload.runId} was interrupted by a cancel no longer requested; it runs again`)
          : caught;
      if (err instanceof ParkSignal) {
        log.info({ wakeAt: err.wakeAt, why: err.why }, "run parked");
        await metrics?.runParked(job.id ?? payload.runId, err.wakeAt);
        await options
          .onRunParked?.(payload)
          .catch((e: unknown) => log.warn({ err: String(e) }, "run-parked hook failed"));
        throw await parkJob(job, token, { wakeAt: err.wakeAt, ready: err.ready });
      }
      // A failed root's layer is kept for the operator (a sub-agent's is its tree's, still in use).
      const keepLayer = async (why: string) =>
        (payload.parentExecutionId === null ? options.deps.layers : undefined)
          ?.keep(payload.traceId, `the run failed (${why}); not landed`)
          .catch((e: unknown) => log.warn({ err: String(e) }, "keeping the run's layer failed"));
      if (!shouldRetryRun(err)) {
        const message = isRunnerError(err) ? `${err.code}: ${err.message}` : String(err);
        log.error({ err: message }, "run failed, not retryable");
        await keepLayer(message);
        await metrics?.runEnded(payload.runId, "failed");
        await finished(payload, failedEnd(err)).catch(() => undefined);
        throw failForGood(message);
      }
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      log.warn({ err: err instanceof Error ? err.message : String(err), lastAttempt }, "run attempt failed");
      if (lastAttempt) {
        await keepLayer(err instanceof Error ? err.message : String(err));
        await finished(payload, failedEnd(err)).catch(() => undefined);
      }
      await (lastAttempt ? metrics?.runEnded(payload.runId, "failed") : metrics?.runRetrying());
      throw err;
    }
  };
}

/** The run worker's record options, logging what the start's reclaim did. */
function workerRecordsOptions(dir: string, deps: RunDeps) {
  return {
    workerRecords: new WorkerRecords(dir),
    // Its worker is gone: the run's open claims are nobody's, so the replay finds them in doubt at
    // once instead of parking until their leases (15 s) lapse.
    beforeTakeBack: (runId: string) => deps.journal.lapseClaims(runId),
    onReclaimed: (runs: readonly string[], fromWorkers: readonly string[]) => {
      if (fromWorkers.length === 0) return;
      deps.logger.info(
        { runs, workers: fromWorkers },
        `took back ${runs.length} runs of ${fromWorkers.length} gone workers at once`,
      );
    },
    onRecordFailed: (err: unknown) =>
      deps.logger.warn(
        { dir, err: String(err) },
        `cannot record this worker in ${dir}; after a crash its runs resume only once their locks lapse (30–60 s): make the data dir writable`,
      ),
    onReclaimFailed: (err: unknown) =>
      deps.logger.warn(
        { err: String(err) },
        "taking back the runs of gone workers failed; their runs resume once their locks lapse",
      ),
  };
}

/**
 * Starts a worker on the `agent` queue (a child's end wakes its parked parent). With `cancels`, a
 * cancel announced for a run this worker is running aborts it (see {@link AgentWorkerOptions.cancels}).
 */
export function startAgentWorker(options: AgentWorkerOptions): RunWorker {
  const worker = startRunWorker({
    connection: options.connection,
    keyPrefix: options.keyPrefix,
    concurrency: options.concurrency,
    ...(options.keepFinished !== undefined ? { keepFinished: options.keepFinished } : {}),
    process: agentProcessor(options),
    ...(options.lockDurationMs ? { lockDurationMs: options.lockDurationMs } : {}),
    ...(options.stalledIntervalMs ? { stalledIntervalMs: options.stalledIntervalMs } : {}),
    ...(options.workerRecordsDir ? workerRecordsOptions(options.workerRecordsDir, options.deps) : {}),
  });
  if (options.cancels) {
    const watch = watchCancels(options.connection, options.keyPrefix, (runId) => {
      worker.cancelJob(runId, "cancelled by an operator");
    });
    watch.ready.catch((err: unknown) =>
      options.deps.logger.warn(
        { err: String(err) },
        "watching for cancels failed; runs stop at their next start",
      ),
    );
    worker.on("closed", () => void watch.stop().catch(() => undefined));
  }
  return worker;
}
