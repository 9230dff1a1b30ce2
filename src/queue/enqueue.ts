import { type AgentJobPayload, parseAgentJobPayload } from "./payload.js";
import type { AgentQueue } from "./queues.js";

/** Retry policy of agent jobs: crashes and transient errors retry; the journal makes retries safe. */
export const AGENT_JOB_ATTEMPTS = 5;

/**
 * Validates and enqueues an agent run. The job id is the run id, so enqueueing the same run twice
 * (a retried API call, a replayed parent) adds it once. How many finished runs are kept is the
 * worker's setting (retention.finished_jobs, see startRunWorker), not stored in every job.
 */
export async function enqueueAgentRun(
  queue: AgentQueue,
  payload: AgentJobPayload,
  options: { priority?: number } = {},
): Promise<string> {
  const valid = parseAgentJobPayload(payload);
  const job = await queue.add("run", valid, {
    jobId: valid.runId,
    attempts: AGENT_JOB_ATTEMPTS,
    backoff: { type: "exponential", delay: 1000 },
    // 1 is the most urgent; unset = BullMQ's plain FIFO.
    ...(options.priority ? { priority: options.priority } : {}),
  });
  return job.id ?? valid.runId;
}
