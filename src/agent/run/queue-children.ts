import { Job, type Queue } from "bullmq";
import { enqueueAgentRun } from "../../queue/index.js";
import type { ChildrenPort, ChildState } from "./ports.js";

/** Child runs as jobs on the agent queue (job id = the child's deterministic run id). */
export function queueChildren(queue: Queue, keepFinished: number): ChildrenPort {
  return {
    async start(payload) {
      // BullMQ ignores an add whose job id already exists: a parent's replay never starts a second child.
      await enqueueAgentRun(queue, payload, { keepFinished });
    },
    async state(runId): Promise<ChildState> {
      const job = await Job.fromId(queue, runId);
      if (!job) return { status: "missing" };
      const state = await job.getState();
      if (state === "completed") {
        const value = job.returnvalue as { finalAnswer?: unknown } | null;
        return {
          status: "completed",
          finalAnswer: typeof value?.finalAnswer === "string" ? value.finalAnswer : "",
        };
      }
      if (state === "failed") return { status: "failed", error: job.failedReason || "failed" };
      if (state === "active") return { status: "running" };
      return { status: "pending" };
    },
  };
}
