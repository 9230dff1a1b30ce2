import { type Job, type JobJson, Queue, QueueEvents, QueueKeys } from "bullmq";
import type { RedisConnection } from "./redis-connection.js";
import { TolerantJob } from "./unreadable-job.js";

/**
 * Queue names and the BullMQ key prefix. The prefix is wrapped in a Redis Cluster hash tag
 * (`{echo}`) so every key of every queue lands in one slot: BullMQ's Lua scripts touch several keys
 * of a queue at once, which a cluster only allows within one slot.
 */
export const QUEUE_NAMES = ["agent"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** The queue agent runs are jobs on. */
export const AGENT_QUEUE: QueueName = "agent";

/** The agent queue: enqueue, read and remove runs (its job id is the run id). */
export type AgentQueue = Queue;
/** One run's job on the agent queue. */
export type RunJob = Job;
/** The agent queue's event stream (completed, failed, removed, …); holds a blocking connection. */
export type AgentQueueEvents = QueueEvents;

/** The BullMQ prefix for a configured key prefix: `echo` → `{echo}`. */
export function bullPrefix(keyPrefix: string): string {
  return `{${keyPrefix}}`;
}

/** The connection options every BullMQ object of the runner is built with. */
export function queueConnection(connection: RedisConnection, keyPrefix: string) {
  return { connection, prefix: bullPrefix(keyPrefix) };
}

/**
 * A job added without the copy of its id in its stored options. BullMQ keeps the `jobId` option in
 * the job hash's `opts` JSON although the id is the key's own last part and `job.id`, and nothing
 * reads it back (the id is checked once, when the job is added): for a run that is its run id again,
 * ~40 bytes per parked run (docs/BENCHMARKS.md). The copy goes only after BullMQ has checked the id, and jobs
 * stored with it (earlier releases) read the same. Reads are BullMQ's, but for a `data` field that
 * is not JSON ({@link TolerantJob}).
 */
class AddedRunJob extends TolerantJob {
  protected override validateOptions(jobData: JobJson): void {
    super.validateOptions(jobData);
    // `jobData.opts` is this same object: what `addJob` stores is the options without the copy.
    delete this.opts.jobId;
  }
}

/** The agent queue: BullMQ's Queue, adding and reading its jobs as {@link AddedRunJob}s. */
class RunQueue extends Queue {
  protected override get Job(): typeof Job {
    // A subclass that only overrides a hook: BullMQ's generic signature cannot see that.
    return AddedRunJob as typeof Job;
  }
}

/** Opens the agent queue over `connection` (shared: a Queue makes no blocking calls). Close it when done. */
export function openAgentQueue(connection: RedisConnection, keyPrefix: string): AgentQueue {
  return new RunQueue(AGENT_QUEUE, queueConnection(connection, keyPrefix));
}

/**
 * Opens the agent queue's events. They block their connection (XREAD BLOCK): give them one of their
 * own (`redis.duplicate()`).
 */
export function openAgentQueueEvents(
  connection: RedisConnection,
  keyPrefix: string,
  options: { lastEventId?: string } = {},
): AgentQueueEvents {
  return new QueueEvents(AGENT_QUEUE, { ...queueConnection(connection, keyPrefix), ...options });
}

/**
 * The id of the newest entry on the agent queue's event stream, or `0-0` when it has none. Events
 * opened after it (`lastEventId`) see every event from this read on; opened without it they read from
 * their first XREAD (`$`), which misses what happens between their start and that read.
 */
export async function newestAgentEventId(connection: RedisConnection, keyPrefix: string): Promise<string> {
  const key = new QueueKeys(bullPrefix(keyPrefix)).toKey(AGENT_QUEUE, "events");
  const [newest] = await connection.xrevrange(key, "+", "-", "COUNT", 1);
  return newest?.[0] ?? "0-0";
}

/** A run's job, or undefined once it is gone (finished and trimmed, removed) or never was. */
export async function findRunJob(queue: AgentQueue, runId: string): Promise<RunJob | undefined> {
  return AddedRunJob.fromId(queue, runId);
}

/** The jobs class the runner's queue and worker read with (see {@link TolerantJob}). */
export const RUN_JOB_CLASS: typeof Job = AddedRunJob as typeof Job;
