import { assertNever } from "../shared/index.js";
import type { Grant, StoredSchedule } from "./records.js";

/** Why a run is or is not cron-authorised. */
export const CRON_AUTHORIZATION_REASONS = [
  "granted-by-human",
  "granted-by-config",
  "schedule-missing",
  "no-grant",
  "grant-revoked",
  "grant-voided",
  "spec-changed",
] as const;
export type CronAuthorizationReason = (typeof CRON_AUTHORIZATION_REASONS)[number];

/** The answer the worker puts into a run's context when the run starts. */
export interface CronAuthorization {
  cronAuthorized: boolean;
  reason: CronAuthorizationReason;
  /** A sentence for logs and the audit trail. */
  detail: string;
  /** The grant that was looked at, if any. */
  grant?: Grant;
  /** The instant (ms) of the check. */
  checkedAt: number;
}

/**
 * Decides whether a run of `stored` is cron-authorised by `grant`. Fails closed: only an active grant
 * whose spec hash equals the schedule's current hash authorises. Pure.
 */
export function evaluateGrant(
  stored: StoredSchedule | null,
  grant: Grant | null,
  now: number,
): CronAuthorization {
  const deny = (reason: CronAuthorizationReason, detail: string): CronAuthorization => ({
    cronAuthorized: false,
    reason,
    detail,
    ...(grant ? { grant } : {}),
    checkedAt: now,
  });
  if (!stored) return deny("schedule-missing", "the schedule no longer exists");
  if (!grant) {
    return deny(
      "no-grant",
      "no grant: the schedule was not created or last changed by a human-approved cronjob call, nor authorised in the config file",
    );
  }
  switch (grant.status) {
    case "revoked":
      return deny("grant-revoked", `grant revoked${grant.endedBy ? ` by ${grant.endedBy}` : ""}`);
    case "voided":
      return deny("grant-voided", "grant voided by a change of the schedule; a new approval is needed");
    case "active":
      break;
    default:
      return assertNever(grant.status, "grant status");
  }
  // Guards against a record edited behind the service's back as much as against a missed void.
  if (grant.specHash !== stored.specHash || grant.scheduleId !== stored.schedule.id) {
    return deny("spec-changed", "the schedule's spec differs from the one the grant authorised");
  }
  switch (grant.source) {
    case "human":
      return {
        cronAuthorized: true,
        reason: "granted-by-human",
        detail: `authorised by ${grant.approver ?? "a person"}'s approval of the cronjob call`,
        grant,
        checkedAt: now,
      };
    case "config":
      return {
        cronAuthorized: true,
        reason: "granted-by-config",
        detail: `authorised in the config file ${grant.configFile ?? "(unknown file)"}`,
        grant,
        checkedAt: now,
      };
    default:
      return assertNever(grant.source, "grant source");
  }
}
