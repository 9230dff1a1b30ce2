import type { AgentQueue, RunJob } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";

/** How long the list of a run's reruns is kept, ms (as long as a journal: 7 days). */
const RERUNS_TTL_MS = 7 * 24 * 3600 * 1000;

/**
 * Moves a failed (or cancelled) run's job back to waiting, with its attempt counters reset, so it
 * runs again under the same run id: it replays its journal, skipping every call that completed.
 */
export async function retryFailedJob(job: RunJob): Promise<void> {
  await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
}

/**
 * Which runs were started as reruns of a run (`jobs rerun`): the other direction of a rerun's
 * `rerunOf`, a list under the queue's prefix (one cluster slot with its jobs).
 */
export class RunReruns {
  readonly #queue: AgentQueue;
  readonly #redis: RedisConnection;

  constructor(queue: AgentQueue, redis: RedisConnection) {
    this.#queue = queue;
    this.#redis = redis;
  }

  #key(runId: string): string {
    return this.#queue.toKey(`reruns:${runId}`);
  }

  /** Records that `rerunId` reruns `runId`. */
  async add(runId: string, rerunId: string): Promise<void> {
    const key = this.#key(runId);
    await this.#redis.multi().rpush(key, rerunId).pexpire(key, RERUNS_TTL_MS).exec();
  }

  /** The reruns of `runId`, oldest first. */
  async of(runId: string): Promise<string[]> {
    return this.#redis.lrange(this.#key(runId), 0, -1);
  }
}
