/**
 * What an alert is about (config `alerts.on`). Here because both the config schema and src/alerts
 * name them, and neither may import the other.
 * - `run_failed`: a run failed for good (not retryable, or its last attempt);
 * - `call_expired`: a parked call's approval expired, so the call was denied;
 * - `schedule_failing`: a schedule's runs failed `alerts.schedule_failures` times in a row;
 * - `schedule_missed`: a schedule's firing was missed (the scheduler was down) and not run.
 */
export const ALERT_KINDS = ["run_failed", "call_expired", "schedule_failing", "schedule_missed"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
