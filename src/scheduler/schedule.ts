import { z } from "zod";
import { AgentSpec } from "../queue/index.js";
import {
  CATCH_UP_POLICIES,
  type CatchUpPolicy,
  hashCanonical,
  OVERLAP_POLICIES,
  type OverlapPolicy,
  RunnerError,
} from "../shared/index.js";
import { CronTimetable } from "./cron-timetable.js";

export { CATCH_UP_POLICIES, type CatchUpPolicy, OVERLAP_POLICIES, type OverlapPolicy };

/** Where a schedule was defined. */
export const SCHEDULE_SOURCE_KINDS = ["config", "cronjob", "cli"] as const;
export type ScheduleSourceKind = (typeof SCHEDULE_SOURCE_KINDS)[number];

/** Shape of a schedule id (the config's `schedules[].id`). */
export const SCHEDULE_ID_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

/** Largest `catchUpMax`. */
export const MAX_CATCH_UP = 1000;

export const ScheduleSource = z.discriminatedUnion("kind", [
  /** From the operator's config file (reconciled at start; authorised there or not at all). */
  z.strictObject({ kind: z.literal("config"), file: z.string().min(1).max(4096) }),
  /** Created at run time by the `cronjob` tool; `runId` is the run that made the call. */
  z.strictObject({ kind: z.literal("cronjob"), runId: z.string().min(1).max(200).optional() }),
  /** Added with `echo-runner schedules add --file`. */
  z.strictObject({ kind: z.literal("cli"), file: z.string().min(1).max(4096).optional() }),
]);
export type ScheduleSource = z.infer<typeof ScheduleSource>;

/**
 * A schedule, version 1: when (cron + IANA zone), what (an agent spec), and the policies. Defaults
 * are applied by the schema: overlap skip, catch-up latest (at most 10 missed ticks for `all`),
 * no jitter, enabled. The cron expression and the zone are checked by {@link parseSchedule}.
 */
export const Schedule = z.strictObject({
  v: z.literal(1),
  id: z.string().regex(SCHEDULE_ID_PATTERN, "letters, digits, _ . - (1-64 characters)"),
  /** 5 fields (minute first) or 6 (seconds first). */
  cron: z.string().min(1).max(200),
  /** IANA time zone the cron expression is read in. */
  timezone: z.string().min(1).max(64),
  agent: AgentSpec,
  overlap: z.enum(OVERLAP_POLICIES).default("skip"),
  catchUp: z.enum(CATCH_UP_POLICIES).default("latest"),
  /** With catch-up `all`: at most this many missed ticks run (the newest). */
  catchUpMax: z.number().int().positive().max(MAX_CATCH_UP).default(10),
  /** Each run is delayed by a deterministic 0..jitterSeconds s derived from id and tick. */
  jitterSeconds: z.number().int().nonnegative().max(3600).default(0),
  enabled: z.boolean().default(true),
  /** The person the runs belong to (the payload's userId). */
  owner: z.string().min(1).max(200),
  source: ScheduleSource,
});
export type Schedule = z.infer<typeof Schedule>;
/** A schedule before defaults are applied (what callers write). */
export type ScheduleInput = z.input<typeof Schedule>;

/**
 * Parses and validates a schedule. Throws RunnerError SCHEDULE_INVALID naming every bad field and
 * what is allowed; the cron expression comes back normalised (single spaces).
 */
export function parseSchedule(input: unknown): Schedule {
  const result = Schedule.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => ({
      field: issue.path.join(".") || "(schedule)",
      message: issue.message,
    }));
    throw new RunnerError(
      "SCHEDULE_INVALID",
      `invalid schedule: ${problems.map((p) => `${p.field}: ${p.message}`).join("; ")}`,
      { data: { field: problems[0]?.field, problems } },
    );
  }
  const timetable = new CronTimetable(result.data.cron, result.data.timezone);
  return { ...result.data, cron: timetable.cron };
}

/**
 * The parts of a schedule a grant binds: everything that decides what runs, when and as whom.
 * `enabled` (pause / resume) and `source` are not part of it.
 */
export function scheduleSpec(schedule: Schedule) {
  return {
    v: schedule.v,
    id: schedule.id,
    cron: schedule.cron,
    timezone: schedule.timezone,
    agent: schedule.agent,
    overlap: schedule.overlap,
    catchUp: schedule.catchUp,
    catchUpMax: schedule.catchUpMax,
    jitterSeconds: schedule.jitterSeconds,
    owner: schedule.owner,
  };
}

/** SHA-256 of the canonical JSON of {@link scheduleSpec}. */
export function scheduleSpecHash(schedule: Schedule): string {
  return hashCanonical(scheduleSpec(schedule));
}
