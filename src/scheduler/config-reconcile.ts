import { RunnerError } from "../shared/index.js";
import type { Grant, HistoryEntry } from "./records.js";
import { parseSchedule, type ScheduleInput } from "./schedule.js";
import { configGrant, endGrant, nextRevision, nextTickOf, timetableChanged } from "./schedule-changes.js";
import type { ScheduleStore } from "./schedule-store.js";

/** One schedule of the config file, mapped onto the scheduler's shape by the caller (cli / workers). */
export interface ConfigScheduleEntry {
  /** Its source must be `{ kind: "config", file }`. */
  schedule: ScheduleInput;
  /** The operator's `authorized: true`: a grant recorded as coming from that file. */
  authorized: boolean;
}

/** What {@link reconcileConfigSchedules} changed, by schedule id. */
export interface ReconcileReport {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
}

/**
 * Makes the stored config schedules equal the config file's list: adds new ones, updates changed ones,
 * removes those no longer listed. Schedules from other sources are never touched; a config id that a
 * cronjob or cli schedule already uses is an error. Grants: `authorized: true` issues a config grant
 * for the current spec (a grant the operator revoked stays revoked until the spec changes);
 * `authorized: false` voids an active one. Called by the Scheduler when it becomes leader, so one
 * process at a time reconciles.
 */
export async function reconcileConfigSchedules(
  store: ScheduleStore,
  entries: readonly ConfigScheduleEntry[],
  now: number,
): Promise<ReconcileReport> {
  const parsed = entries.map((entry) => ({
    schedule: parseSchedule(entry.schedule),
    authorized: entry.authorized,
  }));
  const seen = new Set<string>();
  for (const { schedule } of parsed) {
    if (schedule.source.kind !== "config") {
      throw new RunnerError("SCHEDULE_INVALID", `schedules[${schedule.id}].source: must be config here`, {
        data: { field: "source", id: schedule.id },
      });
    }
    if (seen.has(schedule.id)) {
      throw new RunnerError(
        "SCHEDULE_INVALID",
        `id: schedule id "${schedule.id}" appears twice in the config`,
        {
          data: { field: "id", value: schedule.id },
        },
      );
    }
    seen.add(schedule.id);
  }

  const report: ReconcileReport = { added: [], updated: [], removed: [], unchanged: [] };
  const existing = new Map((await store.list()).map((stored) => [stored.schedule.id, stored]));
  for (const { schedule, authorized } of parsed) {
    const file = schedule.source.kind === "config" ? schedule.source.file : "";
    const previous = existing.get(schedule.id) ?? null;
    if (previous && previous.schedule.source.kind !== "config") {
      throw new RunnerError(
        "SCHEDULE_INVALID",
        `id: schedule "${schedule.id}" in ${file} is already used by a schedule created through ${previous.schedule.source.kind}; rename one of them`,
        { data: { field: "id", value: schedule.id } },
      );
    }
    const stored = nextRevision(schedule, now, previous);
    const history: HistoryEntry[] = [];
    const oldGrant = previous ? await store.getGrant(schedule.id) : null;
    let grant: Grant | undefined;
    if (authorized) {
      const keep =
        oldGrant?.source === "config" &&
        oldGrant.specHash === stored.specHash &&
        (oldGrant.status === "active" || oldGrant.status === "revoked");
      if (!keep) {
        grant = configGrant(stored, file, now);
        history.push({
          v: 1,
          kind: "granted",
          at: now,
          actor: file,
          note: "authorized: true in the config file",
        });
      }
    } else if (oldGrant?.status === "active") {
      grant = endGrant(oldGrant, "voided", now, file);
      history.push({
        v: 1,
        kind: "grant-voided",
        at: now,
        actor: file,
        note: "the config no longer authorises it",
      });
    }

    if (!previous) {
      history.unshift({ v: 1, kind: "created", at: now, actor: file });
      await store.save(stored, {
        expectedRev: 0,
        through: now,
        nextTick: nextTickOf(schedule, now),
        grant: grant ?? null,
        history,
      });
      report.added.push(schedule.id);
      continue;
    }
    const changed =
      previous.specHash !== stored.specHash ||
      previous.schedule.enabled !== schedule.enabled ||
      JSON.stringify(previous.schedule.source) !== JSON.stringify(schedule.source);
    if (!changed && grant === undefined) {
      report.unchanged.push(schedule.id);
      continue;
    }
    if (!changed) {
      await store.setGrant(schedule.id, grant!, history);
      report.updated.push(schedule.id);
      continue;
    }
    const restart =
      timetableChanged(previous.schedule, schedule) || (schedule.enabled && !previous.schedule.enabled);
    const through = restart ? now : ((await store.through(schedule.id)) ?? now);
    history.unshift({ v: 1, kind: "updated", at: now, actor: file });
    await store.save(stored, {
      expectedRev: previous.rev,
      ...(restart ? { through } : {}),
      nextTick: nextTickOf(schedule, through),
      ...(grant === undefined ? {} : { grant }),
      history,
    });
    report.updated.push(schedule.id);
  }
  for (const [id, stored] of existing) {
    if (stored.schedule.source.kind === "config" && !seen.has(id)) {
      await store.delete(id);
      report.removed.push(id);
    }
  }
  return report;
}
