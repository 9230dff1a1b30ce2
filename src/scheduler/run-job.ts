import {
  AGENT_JOB_ATTEMPTS,
  type AgentJobPayload,
  type AgentQueue,
  parseAgentJobPayload,
} from "../queue/index.js";
import { sha256Hex } from "../shared/index.js";
import type { Schedule } from "./schedule.js";

/** The channel of every scheduled run. */
export const CRON_CHANNEL = "cron";

/**
 * The run id (and BullMQ job id) of the run of one tick: `sched-<id>-<instant ms>`. Deterministic,
 * so a second enqueue of the same tick finds the existing job instead of adding another. The instant
 * is the last dash-separated part, so ids with dashes stay unambiguous. BullMQ forbids ":" in ids.
 */
export function scheduledRunId(scheduleId: string, tick: number): string {
  return `sched-${scheduleId}-${tick}`;
}

/** The run id of a `run-now` run requested at `now`. */
export function manualRunId(scheduleId: string, now: number): string {
  return `sched-${scheduleId}-manual-${now}`;
}

/**
 * The delay (ms) of a tick's run: 0..jitterSeconds*1000, derived from the schedule id and the tick
 * so every process computes the same value (no Math.random).
 */
export function jitterMs(scheduleId: string, tick: number, jitterSeconds: number): number {
  if (jitterSeconds <= 0) return 0;
  const draw = Number.parseInt(
    sha256Hex(`echo-runner/jitter/v1\u0000${scheduleId}\u0000${tick}`).slice(0, 12),
    16,
  );
  return draw % (jitterSeconds * 1000 + 1);
}

/**
 * The `agent` job payload of a scheduled run: origin schedule, unattended, channel cron, the
 * schedule's owner as user. `cronAuthorized` is not in the payload: the worker asks
 * resolveCronAuthorization when the run starts.
 */
export function scheduledRunPayload(
  schedule: Schedule,
  tick: number,
  runId: string,
  now: number,
): AgentJobPayload {
  return parseAgentJobPayload({
    v: 1,
    runId,
    traceId: runId,
    agent: schedule.agent,
    origin: { kind: "schedule", scheduleId: schedule.id, scheduledFor: tick },
    sessionKey: `schedule:${schedule.id}`,
    userId: schedule.owner,
    agentId: `schedule:${schedule.id}`,
    channel: CRON_CHANNEL,
    chatId: "",
    unattended: true,
    parentExecutionId: null,
    depth: 0,
    createdAt: now,
  });
}

/** The part of the agent queue the scheduler uses. */
export type AgentQueuePort = Pick<AgentQueue, "add" | "addBulk" | "getJobState">;

/** BullMQ job name of agent runs (as queue's enqueueAgentRun names them). */
export const AGENT_RUN_JOB_NAME = "run";

/**
 * Adds a scheduled run to the `agent` queue with the job options of queue's enqueueAgentRun
 * (retries, kept finished jobs) plus the jitter delay, which enqueueAgentRun does not take.
 */
export async function enqueueScheduledRun(
  queue: AgentQueuePort,
  payload: AgentJobPayload,
  options: { delayMs: number },
): Promise<void> {
  await queue.add(AGENT_RUN_JOB_NAME, payload, runJobOptions(payload, options.delayMs));
}

/**
 * {@link enqueueScheduledRun} for many runs in one BullMQ `addBulk` (one MULTI: the firing of a
 * tick shared by thousands of schedules costs a few round trips, not one per run). A run whose job
 * id exists already is not added again, as with `add`.
 */
export async function enqueueScheduledRuns(
  queue: AgentQueuePort,
  runs: readonly { payload: AgentJobPayload; delayMs: number }[],
): Promise<void> {
  if (runs.length === 0) return;
  await queue.addBulk(
    runs.map(({ payload, delayMs }) => ({
      name: AGENT_RUN_JOB_NAME,
      data: payload,
      opts: runJobOptions(payload, delayMs),
    })),
  );
}

function runJobOptions(payload: AgentJobPayload, delayMs: number) {
  return {
    jobId: payload.runId,
    attempts: AGENT_JOB_ATTEMPTS,
    backoff: { type: "exponential" as const, delay: 1000 },
    ...(delayMs > 0 ? { delay: delayMs } : {}),
  };
}
