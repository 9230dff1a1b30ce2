import type { ApprovalSource } from "../catalog/index.js";
import { RunnerError } from "../shared/index.js";
import { timetableFor } from "./cron-timetable.js";
import type { Grant, HistoryEntry, StoredSchedule } from "./records.js";
import { type Schedule, scheduleSpecHash } from "./schedule.js";

/**
 * How the `cronjob` call that creates or changes a schedule was approved (its ctx.approvalSource and
 * the approver). Only `human` with an approver issues a grant; anything else leaves the schedule
 * without one.
 */
export interface CronjobApproval {
  approvalSource: ApprovalSource | null;
  /** The person who approved the call (required with `human`). */
  approver?: string;
  /** Who made the change, for the history (approver, operator, run id). */
  actor?: string;
}

/** The stored record of a new revision of `schedule`. */
export function nextRevision(
  schedule: Schedule,
  now: number,
  previous: StoredSchedule | null,
): StoredSchedule {
  return {
    v: 1,
    schedule,
    specHash: scheduleSpecHash(schedule),
    rev: (previous?.rev ?? 0) + 1,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
  };
}

/** True when the change moves the schedule's ticks (the watermark restarts at the change). */
export function timetableChanged(before: Schedule, after: Schedule): boolean {
  return before.cron !== after.cron || before.timezone !== after.timezone;
}

/** The first tick after `after`, or null for a paused schedule. */
export function nextTickOf(schedule: Schedule, after: number): number | null {
  return schedule.enabled ? timetableFor(schedule.cron, schedule.timezone).next(after) : null;
}

/** A grant from a person's approval of the cronjob call; throws when the approval is not human. */
export function humanGrant(stored: StoredSchedule, approval: CronjobApproval, now: number): Grant {
  if (approval.approvalSource !== "human" || !approval.approver) {
    throw new RunnerError(
      "SCHEDULE_INVALID",
      "a grant needs a cronjob call approved by a person (approvalSource human) and the approver's id",
      { data: { field: "approval" } },
    );
  }
  return {
    v: 1,
    scheduleId: stored.schedule.id,
    specHash: stored.specHash,
    source: "human",
    approver: approval.approver,
    issuedAt: now,
    status: "active",
  };
}

/** A grant from `authorized: true` in the operator's config file. */
export function configGrant(stored: StoredSchedule, configFile: string, now: number): Grant {
  return {
    v: 1,
    scheduleId: stored.schedule.id,
    specHash: stored.specHash,
    source: "config",
    configFile,
    issuedAt: now,
    status: "active",
  };
}

/** The grant after it was voided or revoked. */
export function endGrant(grant: Grant, status: "voided" | "revoked", now: number, by: string): Grant {
  return { ...grant, status, endedAt: now, endedBy: by };
}

/**
 * The grant change of a spec change: a human approval issues a new grant; otherwise an active grant
 * is voided (kept, marked, so `show` explains why the runs lost authorisation). Returns undefined
 * when nothing changes.
 */
export function grantAfterChange(
  stored: StoredSchedule,
  previous: Grant | null,
  approval: CronjobApproval,
  now: number,
  history: HistoryEntry[],
): Grant | undefined {
  const actor = approval.actor ?? approval.approver ?? "unknown";
  if (approval.approvalSource === "human") {
    const grant = humanGrant(stored, approval, now);
    history.push({ v: 1, kind: "granted", at: now, actor: grant.approver! });
    return grant;
  }
  if (previous?.status === "active") {
    history.push({
      v: 1,
      kind: "grant-voided",
      at: now,
      actor,
      note: "the schedule changed without a human approval",
    });
    return endGrant(previous, "voided", now, actor);
  }
  return undefined;
}
