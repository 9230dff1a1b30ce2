import { z } from "zod";
import { ALERT_KINDS } from "../shared/index.js";

/**
 * One alert as the outbox stores it. `id` makes it once: the same failure reported twice (a hook
 * run again after a crash, two promoters reading one expiry) is one alert. `detail` may carry text
 * the runner did not write (a model server's error message): it is neutralised where it is shown.
 */
export const Alert = z.strictObject({
  v: z.literal(1),
  id: z.string().min(1).max(500),
  kind: z.enum(ALERT_KINDS),
  /** When it happened, ms. */
  at: z.number().int().nonnegative(),
  /** The run it is about (null: a missed firing, which has no run). */
  runId: z.string().min(1).max(200).nullable(),
  agent: z.string().max(200),
  scheduleId: z.string().min(1).max(200).nullable(),
  /** The run's owner (schedule author, else the user who started it), or null. */
  owner: z.string().min(1).max(200).nullable(),
  /** The error code (run_failed: `MODEL_AUTH_FAILED`, …), or null. */
  code: z.string().max(100).nullable(),
  /** One line on what happened, already cleared of known secrets; at most 2,000 characters. */
  detail: z.string().max(2000),
});
export type Alert = z.infer<typeof Alert>;

/**
 * The group an alert is sent in: one per schedule, else one per agent. A storm from one schedule
 * (every run failing on a revoked key) becomes one digest, not one mail per run.
 */
export function alertGroup(alert: Pick<Alert, "scheduleId" | "agent">): string {
  return alert.scheduleId !== null ? `schedule:${alert.scheduleId}` : `agent:${alert.agent}`;
}
