import { type FlowJob, FlowProducer } from "bullmq";
import { luaScript } from "../lua/index.js";
import type { ChildFlowRecord, ChildrenPort, ChildState } from "./children-port.js";
import { AGENT_JOB_ATTEMPTS, enqueueAgentRun } from "./enqueue.js";
import { flowShape } from "./flow-shape.js";
import { parseAgentJobPayload } from "./payload.js";
import { type AgentQueue, findRunJob } from "./queues.js";
import type { RedisConnection } from "./redis-connection.js";

const DEFAULT_RECORD_TTL_MS = 7 * 24 * 3600 * 1000;

/**
 * Sets a job's data only while it is queued and not started (wait, paused, prioritized or waiting
 * for its flow children): one script, so a worker cannot take the job between the check and the
 * write. Delayed jobs are left alone: in this runner a delayed job is a parked run, already started.
 */
const UPDATE_QUEUED = luaScript(import.meta.url, "updateQueued-5.lua").lua;

/**
 * Child runs as jobs on the agent queue (job id = the child's deterministic run id). Stop requests
 * and workflow records live under the queue's own key prefix, so they share its cluster slot.
 */
export function queueChildren(
  queue: AgentQueue,
  options: {
    /** The queue's connection, for stop requests and workflow records. */
    redis: RedisConnection;
    /** How long stop requests and workflow records are kept, ms (default 7 days). */
    recordTtlMs?: number;
  },
): ChildrenPort {
  const recordTtlMs = options.recordTtlMs ?? DEFAULT_RECORD_TTL_MS;
  let flows: FlowProducer | undefined;
  const flowProducer = () => {
    flows ??= new FlowProducer({
      connection: options.redis,
      ...(queue.opts.prefix ? { prefix: queue.opts.prefix } : {}),
    });
    return flows;
  };
  const stopKey = (runId: string) => queue.toKey(`stop:${runId}`);
  const flowKey = (id: string) => queue.toKey(`workflow:${id}`);
  const jobOpts = {
    attempts: AGENT_JOB_ATTEMPTS,
    backoff: { type: "exponential", delay: 1000 },
  };
  return {
    async start(payload, startOptions = {}) {
      // BullMQ ignores an add whose job id already exists: a parent's replay never starts a second child.
      await enqueueAgentRun(queue, payload, startOptions.priority ? { priority: startOptions.priority } : {});
    },
    async state(runId): Promise<ChildState> {
      const job = await findRunJob(queue, runId);
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
    async payload(runId) {
      const job = await findRunJob(queue, runId);
      if (!job) return undefined;
      try {
        return parseAgentJobPayload(job.data);
      } catch {
        return undefined;
      }
    },
    async update(runId, change) {
      const job = await findRunJob(queue, runId);
      if (!job) return "missing";
      let data = "";
      if (change.task !== undefined) {
        const current = parseAgentJobPayload(job.data);
        data = JSON.stringify(
          parseAgentJobPayload({ ...current, agent: { ...current.agent, task: change.task } }),
        );
      }
      const client = options.redis;
      const outcome = (await client.eval(
        UPDATE_QUEUED,
        5,
        queue.toKey(runId),
        queue.toKey("wait"),
        queue.toKey("paused"),
        queue.toKey("prioritized"),
        queue.toKey("waiting-children"),
        runId,
        data,
      )) as "updated" | "started" | "missing";
      if (outcome === "updated" && change.priority !== undefined) {
        await job.changePriority({ priority: change.priority });
      }
      return outcome;
    },
    async stop(runId) {
      const job = await findRunJob(queue, runId);
      if (!job) return "missing";
      const state = await job.getState();
      if (state === "completed" || state === "failed") return "finished";
      // The request first: whatever the job does next (start, wake from a park), its loop sees it.
      const client = options.redis;
      await client.set(stopKey(runId), "1", "PX", recordTtlMs);
      // A workflow step is not removed: that would let the next step start without it. It fails
      // at its first step instead, and the steps after it fail with it.
      if (job.parentKey) return "signalled";
      try {
        await job.remove();
        return "removed";
      } catch {
        // Locked by a worker (running): the loop stops at its next step.
        return "signalled";
      }
    },
    async stopRequested(runId) {
      const client = options.redis;
      return (await client.exists(stopKey(runId))) === 1;
    },
    async startFlow(record, steps) {
      const client = options.redis;
      if ((await client.exists(flowKey(record.id))) === 1) return "exists";
      const byId = new Map(steps.map((s) => [s.runId, parseAgentJobPayload(s)]));
      const shape = flowShape(steps);
      const node = (runId: string): FlowJob => {
        const data = byId.get(runId);
        if (!data) throw new Error(`workflow ${record.id}: no step with run id ${runId}`);
        const children = (shape.children.get(runId) ?? []).map(node);
        return {
          name: "run",
          queueName: queue.name,
          data,
          opts: {
            ...jobOpts,
            jobId: runId,
            // A failed step fails the steps after it instead of leaving them waiting for ever.
            failParentOnFailure: true,
          },
          ...(children.length > 0 ? { children } : {}),
        };
      };
      if (steps.length === 0) return "exists";
      // One MULTI adds the whole tree; ids are deterministic, so a repeated add changes nothing.
      await flowProducer().add(node(shape.root));
      const written = await client.set(flowKey(record.id), JSON.stringify(record), "PX", recordTtlMs, "NX");
      return written === "OK" ? "started" : "exists";
    },
    async flow(id) {
      const client = options.redis;
      const raw = await client.get(flowKey(id));
      if (!raw) return undefined;
      try {
        return JSON.parse(raw) as ChildFlowRecord;
      } catch {
        return undefined;
      }
    },
  };
}
