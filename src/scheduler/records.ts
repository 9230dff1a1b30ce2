import { z } from "zod";
import { RunnerError } from "../shared/index.js";
import { Schedule } from "./schedule.js";

/** A schedule as stored: the schedule, the hash its grant must match, and bookkeeping. */
export const StoredSchedule = z.strictObject({
  v: z.literal(1),
  schedule: Schedule,
  /** {@link scheduleSpecHash} of `schedule`. */
  specHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** Incremented by every change; the firing loop only reschedules the revision it read. */
  rev: z.number().int().positive(),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
});
export type StoredSchedule = z.infer<typeof StoredSchedule>;

/** Who issued a grant: a person who approved the `cronjob` call, or the operator's config file. */
export const GRANT_SOURCES = ["human", "config"] as const;
export type GrantSource = (typeof GRANT_SOURCES)[number];

/** A grant is active until a spec change voids it or an operator revokes it. */
export const GRANT_STATUSES = ["active", "voided", "revoked"] as const;
export type GrantStatus = (typeof GRANT_STATUSES)[number];

/** The `cron_authorized` grant of a schedule, bound to the hash of the spec that was authorised. */
export const Grant = z.strictObject({
  v: z.literal(1),
  scheduleId: z.string().min(1),
  specHash: z.string().regex(/^[0-9a-f]{64}$/),
  source: z.enum(GRANT_SOURCES),
  /** The person who approved the `cronjob` call (source human). */
  approver: z.string().min(1).max(200).optional(),
  /** The config file that marked the schedule `authorized: true` (source config). */
  configFile: z.string().min(1).max(4096).optional(),
  issuedAt: z.number().int().nonnegative(),
  status: z.enum(GRANT_STATUSES),
  /** When and by whom it was voided or revoked. */
  endedAt: z.number().int().nonnegative().optional(),
  endedBy: z.string().min(1).max(200).optional(),
});
export type Grant = z.infer<typeof Grant>;

/** Kinds of history entries. */
export const HISTORY_KINDS = [
  /** A tick enqueued its run on time. */
  "fired",
  /** A missed tick enqueued its run after downtime (catch-up latest / all). */
  "caught-up",
  /** A tick not run because the previous run was active (overlap skip, or the queue was full). */
  "skipped-overlap",
  /** A tick waiting for the previous run to finish (overlap queue). */
  "queued",
  /** A queued tick enqueued its run. */
  "released",
  /** Ticks missed during downtime and not run (catch-up policy); `count` of them. */
  "missed",
  "run-now",
  "finished",
  "created",
  "updated",
  "paused",
  "resumed",
  "granted",
  "grant-voided",
  "revoked",
] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/** One entry of a schedule's run history. */
export const HistoryEntry = z.strictObject({
  v: z.literal(1),
  kind: z.enum(HISTORY_KINDS),
  /** When it was recorded (ms). */
  at: z.number().int().nonnegative(),
  /** The scheduled instant (ms) it is about. */
  tick: z.number().int().nonnegative().optional(),
  runId: z.string().min(1).max(200).optional(),
  /** For `missed`: how many ticks (counting stops at the catch-up scan limit). */
  count: z.number().int().nonnegative().optional(),
  /** Who did it (approver, operator, run id of a cronjob call). */
  actor: z.string().min(1).max(200).optional(),
  note: z.string().max(500).optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** Decodes a stored JSON record; throws SCHEDULE_INVALID naming the key when it does not parse. */
export function decodeRecord<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new RunnerError("SCHEDULE_INVALID", `stored ${what} is not JSON`, { cause: err, data: { what } });
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    throw new RunnerError(
      "SCHEDULE_INVALID",
      `stored ${what} does not match its schema: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      { data: { what } },
    );
  }
  return result.data;
}
