import { z } from "zod";
import { SESSION_PERMISSION_MODES } from "../policy/index.js";
import { RunnerError } from "../shared/index.js";
import { isUnreadableJobData } from "./unreadable-job.js";

/** Where a run came from. */
export const RUN_ORIGINS = ["schedule", "parent", "api", "cli"] as const;
export type RunOrigin = (typeof RUN_ORIGINS)[number];

const id = z.string().min(1).max(200);

/** What the agent is and may do. */
export const AgentSpec = z.strictObject({
  /** Name of a model in config `models`. */
  model: z.string().min(1).max(200),
  /** The task / prompt given to the agent. */
  task: z.string().min(1).max(100_000),
  /** The per-job tool subset; omitted = every tool the policy leaves. */
  allowedTools: z.array(z.string().min(1).max(200)).max(500).optional(),
  /** Upper bound of model turns. */
  maxSteps: z.number().int().positive().max(10_000),
  /** Absolute path of the run's workspace. */
  workspace: z.string().min(1).max(4096),
  /** Session permission mode of the run (policy's SESSION_PERMISSION_MODES). */
  sessionMode: z.enum(SESSION_PERMISSION_MODES).optional(),
  /**
   * Limits the agent's own definition set (an agent file, a schedule file's inline agent): applied
   * with the config's, the stricter budget winning. Sub-agents carry them too.
   */
  limits: z
    .strictObject({
      maxInputTokens: z.number().int().positive().optional(),
      maxOutputTokens: z.number().int().positive().optional(),
      maxCostUsd: z.number().positive().optional(),
      maxWallSeconds: z.number().int().positive().optional(),
      contextBudget: z.number().int().min(1000).max(10_000_000).optional(),
      liveOutputChars: z
        .record(z.string().min(1).max(128), z.number().int().min(200).max(1_000_000))
        .optional(),
    })
    .optional(),
});
export type AgentSpec = z.infer<typeof AgentSpec>;

/**
 * The payload of a job on the `agent` queue, version 1. Validated on enqueue and on pick-up; an
 * invalid payload fails its job at once, without retries.
 */
export const AgentJobPayload = z.strictObject({
  v: z.literal(1),
  /** Execution id of this run (also the BullMQ job id). */
  runId: id,
  traceId: id,
  agent: AgentSpec,
  origin: z.strictObject({
    kind: z.enum(RUN_ORIGINS),
    scheduleId: id.optional(),
    /** The scheduled instant (ms) a schedule firing was for. */
    scheduledFor: z.number().int().nonnegative().optional(),
  }),
  sessionKey: id,
  userId: id,
  agentId: id,
  channel: z.string().min(1).max(200),
  chatId: z.string().max(200),
  unattended: z.boolean(),
  parentExecutionId: id.nullable(),
  /** Nesting depth: 0 for a top-level run. */
  depth: z.number().int().nonnegative().max(100),
  /** Workflow steps: run ids whose final answers this run is given with its task (they ran before it). */
  dependsOn: z.array(id).max(100).optional(),
  /** The run this one reruns (`jobs rerun`): same agent, task and schedule, a new run and journal. */
  rerunOf: id.optional(),
  createdAt: z.number().int().nonnegative(),
});
export type AgentJobPayload = z.infer<typeof AgentJobPayload>;

/**
 * Parses a payload; throws RunnerError PAYLOAD_INVALID naming every bad field, PAYLOAD_UNREADABLE
 * when the stored data was not JSON at all.
 */
export function parseAgentJobPayload(data: unknown): AgentJobPayload {
  if (isUnreadableJobData(data)) {
    throw new RunnerError("PAYLOAD_UNREADABLE", `unreadable agent job payload: ${data.describe()}`, {
      data: { reason: data.reason },
    });
  }
  const result = AgentJobPayload.safeParse(data);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join(".") || "(payload)"}: ${issue.message}`,
  );
  throw new RunnerError("PAYLOAD_INVALID", `invalid agent job payload: ${problems.join("; ")}`, {
    data: { problems },
  });
}
