import { type Job, Worker } from "bullmq";
import { openAgentQueue, queueConnection, RUN_JOB_CLASS, type RunJob } from "./queues.js";
import { reclaimRunsOf } from "./reclaim-runs.js";
import type { RedisConnection } from "./redis-connection.js";
import { wakeParentOf } from "./wake.js";
import type { WorkerRecords } from "./worker-records.js";

/** A worker on the agent queue; close() waits for its jobs in flight. */
export type RunWorker = Worker;

/**
 * Handles one run's job; `token` is the job's lock token (for {@link parkJob}); `signal` aborts when
 * the run is cancelled while this worker runs it (`worker.cancelJob`).
 */
export type RunProcessor = (job: RunJob, token?: string, signal?: AbortSignal) => Promise<unknown>;

/** Options for {@link startRunWorker}. */
export interface RunWorkerOptions {
  /** A connection with maxRetriesPerRequest: null (BullMQ duplicates it for blocking calls). */
  connection: RedisConnection;
  keyPrefix: string;
  concurrency: number;
  /**
   * Finished jobs kept, completed and failed each (retention.finished_jobs; default 1000). A
   * worker setting rather than a job option, so no job stores it (~60 bytes per parked run, issue
   * 20); a job that carries its own (enqueued by an earlier release) keeps to it.
   */
  keepFinished?: number;
  process: RunProcessor;
  /** BullMQ job lock, ms (default 30 s). A crashed worker's job is picked up again after it lapses. */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for, ms (default 30 s). */
  stalledIntervalMs?: number;
  /**
   * The records of this machine's workers on the data dir. With them the worker records itself
   * before it takes a job, and at start moves the runs of every recorded worker proven gone back to
   * wait at once ({@link reclaimRunsOf}) instead of after their locks lapse. None: BullMQ's lock and
   * stall check alone (a crashed worker's runs resume 30–60 s later).
   */
  workerRecords?: WorkerRecords;
  /** Runs for each run taken back, before it moves (see {@link reclaimRunsOf}'s `beforeMove`). */
  beforeTakeBack?: (runId: string) => Promise<unknown>;
  /** Called once the start's reclaim is done: the runs moved back and the gone workers they were held by. */
  onReclaimed?: (runs: readonly string[], fromWorkers: readonly string[]) => void;
  /** Called when this worker's record cannot be written: it runs without records. */
  onRecordFailed?: (err: unknown) => void;
  /** Called when the start's reclaim failed (the gone workers' records stay for the next start). */
  onReclaimFailed?: (err: unknown) => void;
}

/** BullMQ's Worker, reading its jobs as the queue does: a job whose data is not JSON still reaches the processor. */
class RunJobWorker extends Worker {
  protected override get Job(): typeof Job {
    return RUN_JOB_CLASS;
  }
}

/** Starts a worker on the agent queue that wakes a parked parent as soon as a child of it ends. */
export function startRunWorker(options: RunWorkerOptions): RunWorker {
  const queue = openAgentQueue(options.connection, options.keyPrefix);
  const worker = new RunJobWorker(queue.name, options.process, {
    ...queueConnection(options.connection, options.keyPrefix),
    concurrency: options.concurrency,
    removeOnComplete: { count: options.keepFinished ?? 1000 },
    removeOnFail: { count: options.keepFinished ?? 1000 },
    // A crash is expected, not a failure: the journal makes picking a stalled job up again safe, so
    // a job is never failed for having stalled (BullMQ's default gives up after one stall).
    maxStalledCount: 1000,
    ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
    ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
  });
  // A child's end wakes its parent at once (parked waiting for it), once BullMQ has recorded the end:
  // a parent woken earlier would still find the child running and park again. A parent not parked
  // yet finds the end itself (its park's ready check); one lost in a crash re-checks on its own.
  worker.on("completed", (job) => wakeParentOf(queue, job));
  // Only a failure for good (finishedOn set): a retried child is not over yet.
  worker.on("failed", (job) => (job?.finishedOn ? wakeParentOf(queue, job) : undefined));
  worker.on("closed", () => void queue.close().catch(() => undefined));
  const records = options.workerRecords;
  if (records) {
    // Written before the first job can be fetched (that takes a round trip): no lock of this worker
    // exists without its record. A worker that cannot write one runs without (its runs are then
    // recovered by BullMQ's lock alone) and takes nothing back.
    try {
      records.add(worker.id);
    } catch (err) {
      options.onRecordFailed?.(err);
      return worker;
    }
    worker.on("closed", () => records.remove(worker.id));
    void (async () => {
      const gone = records.gone().filter((id) => id !== worker.id);
      const { reclaimed } = await reclaimRunsOf(options.connection, queue, gone, options.beforeTakeBack);
      for (const id of gone) records.remove(id);
      options.onReclaimed?.(reclaimed, gone);
    })().catch((err: unknown) => options.onReclaimFailed?.(err));
  }
  return worker;
}
