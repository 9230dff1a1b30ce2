import { type AgentQueue, findRunJob, type RunJob } from "./queues.js";

/**
 * Wakes a parked run now (promotes its delayed job). A job that is not delayed any more (already
 * woken, finished, removed) needs nothing: a failed promote is ignored. Rejects only when the job
 * cannot be read.
 */
export async function wakeRun(queue: AgentQueue, runId: string): Promise<void> {
  const job = await findRunJob(queue, runId);
  await job?.promote().catch(() => undefined);
}

/** Wakes the parent of a child run's job, if it has one (it parks waiting for its children). */
export function wakeParentOf(queue: AgentQueue, child: RunJob | undefined): void {
  const parentId = (child?.data as { parentExecutionId?: unknown } | undefined)?.parentExecutionId;
  if (typeof parentId !== "string") return;
  void wakeRun(queue, parentId).catch(() => undefined);
}
