import { z } from "zod";
import { luaScript } from "../lua/index.js";
import { type AgentEventWatch, watchAgentEvents } from "./agent-event-watch.js";
import type { AgentQueue } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";

/** How long a cancel request is kept, ms (as long as a journal: 7 days). */
const CANCEL_REQUEST_TTL_MS = 7 * 24 * 3600 * 1000;

/** The queue event a cancel request of a running run is announced with (read by every worker). */
export const CANCEL_EVENT = "echo-cancel-requested";

/** Where an operator acted from. */
export const OPERATOR_CHANNELS = ["cli", "api", "admin"] as const;
export type OperatorChannel = (typeof OPERATOR_CHANNELS)[number];

/** Who asked a run to stop, from where, why and when (stored while the run is being cancelled). */
export const CancelRequest = z.strictObject({
  by: z.string().min(1).max(512),
  via: z.enum(OPERATOR_CHANNELS),
  reason: z.string().max(2000),
  at: z.number().int().nonnegative(),
});
export type CancelRequest = z.infer<typeof CancelRequest>;

/**
 * Moves a job that no worker holds (waiting, prioritized, paused, delayed: parked or backing off
 * before a retry) to failed with the cancellation as its reason, in one script, so no worker can
 * take it between the check and the move. A running job is left to its worker ("active"); a
 * workflow step (it has a parent job) or a job waiting for its children is left to the worker too
 * ("defer"), since moving it by hand would leave its flow waiting: it fails at its start instead.
 */
const CANCEL_QUEUED = luaScript(import.meta.url, "cancelQueued-10.lua").lua;

/**
 * What {@link cancelQueuedRun} did: `cancelled` (moved to failed now), `active` (a worker runs it:
 * signal it), `defer` (a workflow step or a parent waiting for children: its worker fails it when it
 * starts), `completed` / `failed` (already ended), `missing` (no such job).
 */
export type QueuedCancelOutcome = "cancelled" | "active" | "defer" | "completed" | "failed" | "missing";

/** The failed reason of a cancelled run's job: the code first, so every reader can tell it apart. */
export function cancelledReason(request: CancelRequest): string {
  const why = request.reason ? `: ${request.reason}` : "";
  return `RUN_CANCELLED: cancelled by ${request.by} (via ${request.via})${why}`;
}

/** Whether a failed job's reason says it was cancelled (by an operator or its parent run). */
export function isCancelledReason(failedReason: string | undefined): boolean {
  return typeof failedReason === "string" && failedReason.startsWith("RUN_CANCELLED");
}

/**
 * Cancel requests of runs and the moves that end a run cancelled. Keys live under the queue's own
 * prefix (one cluster slot with its jobs).
 */
export class RunCancels {
  readonly #queue: AgentQueue;
  readonly #redis: RedisConnection;

  constructor(queue: AgentQueue, redis: RedisConnection) {
    this.#queue = queue;
    this.#redis = redis;
  }

  #key(runId: string): string {
    return this.#queue.toKey(`cancel:${runId}`);
  }

  /** Records the request first: whatever the job does next (start, wake, park), its worker sees it. */
  async request(runId: string, request: CancelRequest): Promise<void> {
    await this.#redis.set(
      this.#key(runId),
      JSON.stringify(CancelRequest.parse(request)),
      "PX",
      CANCEL_REQUEST_TTL_MS,
    );
  }

  /** The pending cancel request of a run, or null. */
  async requested(runId: string): Promise<CancelRequest | null> {
    const raw = await this.#redis.get(this.#key(runId));
    if (raw === null) return null;
    try {
      return CancelRequest.parse(JSON.parse(raw));
    } catch {
      return { by: "unknown", via: "cli", reason: "unreadable cancel request", at: 0 };
    }
  }

  /** Forgets the request (a retried run must not be cancelled again by it). */
  async clear(runId: string): Promise<void> {
    await this.#redis.del(this.#key(runId));
  }

  /** Ends a job no worker holds as cancelled, atomically (see {@link QueuedCancelOutcome}). */
  async cancelQueued(runId: string, request: CancelRequest, now: number): Promise<QueuedCancelOutcome> {
    const q = this.#queue;
    return (await this.#redis.eval(
      CANCEL_QUEUED,
      10,
      q.toKey(runId),
      q.toKey("wait"),
      q.toKey("paused"),
      q.toKey("prioritized"),
      q.toKey("delayed"),
      q.toKey("failed"),
      q.toKey("events"),
      q.toKey("active"),
      q.toKey("waiting-children"),
      q.toKey("completed"),
      runId,
      cancelledReason(request),
      String(Math.floor(now)),
    )) as QueuedCancelOutcome;
  }

  /** Tells every worker that a run was asked to stop (the one running it aborts it). */
  async announce(runId: string): Promise<void> {
    await this.#redis.xadd(this.#queue.toKey("events"), "*", "event", CANCEL_EVENT, "jobId", runId);
  }
}

/** A started watch; `ready` resolves once it listens. */
export type CancelWatch = AgentEventWatch;

/**
 * Calls `onCancel` with the run id of every cancel announced on the agent queue's event stream, from
 * whichever process. Listens on a connection of its own, from the stream's newest entry read first.
 */
export function watchCancels(
  connection: RedisConnection,
  keyPrefix: string,
  onCancel: (runId: string) => void,
): CancelWatch {
  return watchAgentEvents(connection, keyPrefix, CANCEL_EVENT, onCancel);
}
