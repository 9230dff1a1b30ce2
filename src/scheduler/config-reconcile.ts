import { isRunnerError, RunnerError } from "../shared/index.js";
import type { Grant, HistoryEntry } from "./records.js";
import { parseSchedule, type Schedule, type ScheduleInput } from "./schedule.js";
import { configGrant, endGrant, nextRevision, nextTickOf, timetableChanged } from "./schedule-changes.js";
import type { DamagedSchedule, ScheduleStore } from "./schedule-store.js";

/** One schedule of the config file, mapped onto the scheduler's shape by the caller (cli / workers). */
export interface ConfigScheduleEntry {
  /** Its source must be `{ kind: "config", file }`. */
  schedule: ScheduleInput;
  /** The operator's `authorized: true`: a grant recorded as coming from that file. */
  authorized: boolean;
}

/** A config schedule that could not be reconciled, and why; it was left as it was. */
export interface SkippedSchedule {
  /** Its index in the config's `schedules`. */
  index: number;
  id: string;
  /** The field at fault (`cron`, `timezone`, `id`, ...). */
  field: string;
  message: string;
}

/** What {@link reconcileConfigSchedules} changed, by schedule id. */
export interface ReconcileReport {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
  /**
   * Schedules skipped because they are invalid, clash with another schedule's id, or their stored
   * record cannot be read.
   */
  skipped: SkippedSchedule[];
  /**
   * Stored schedules that cannot be read, config or not: left as they are (never overwritten or
   * removed, as their source is unknown) while the others are reconciled.
   */
  damaged: DamagedSchedule[];
}

/**
 * Makes the stored config schedules equal the config file's list: adds new ones, updates changed ones,
 * removes those no longer listed. Schedules from other sources are never touched. A config schedule
 * that is invalid, listed twice, or whose id a cronjob or cli schedule already uses is skipped (left as
 * stored, reported in `skipped`) and never stops the others; so is one whose stored record cannot be
 * read (`damaged` lists every such record, which is neither overwritten nor removed). Grants: `authorized: true` issues a config grant
 * for the current spec (a grant the operator revoked stays revoked until the spec changes);
 * `authorized: false` voids an active one. Called by the Scheduler when it becomes leader, so one
 * process at a time reconciles.
 */
export async function reconcileConfigSchedules(
  store: ScheduleStore,
  entries: readonly ConfigScheduleEntry[],
  now: number,
): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    added: [],
    updated: [],
    removed: [],
    unchanged: [],
    skipped: [],
    damaged: [],
  };
  const skip = (index: number, id: string, err: unknown) => {
    if (!isRunnerError(err, "SCHEDULE_INVALID")) throw err;
    const field = typeof err.data.field === "string" ? err.data.field : "(schedule)";
    report.skipped.push({ index, id, field, message: err.message });
  };
  // Every listed id is kept from removal, also one that is skipped: a bad edit leaves the stored
  // schedule as it was rather than deleting it.
  const seen = new Set<string>();
  const parsed: { schedule: Schedule; authorized: boolean; index: number }[] = [];
  entries.forEach((entry, index) => {
    const id = String(entry.schedule.id);
    try {
      const schedule = parseSchedule(entry.schedule);
      if (schedule.source.kind !== "config") {
        throw new RunnerError("SCHEDULE_INVALID", "source: must be config here", {
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
      parsed.push({ schedule, authorized: entry.authorized, index });
    } catch (err) {
      skip(index, id, err);
    }
    seen.add(id);
  });

  // One damaged stored schedule stops no reconcile (and so no firing): it is reported and left.
  const listing = await store.listWithDamaged();
  report.damaged = listing.damaged;
  const damaged = new Map(listing.damaged.map((d) => [d.id, d]));
  const existing = new Map(listing.schedules.map((stored) => [stored.schedule.id, stored]));
  for (const { schedule, authorized, index } of parsed) {
    const file = schedule.source.kind === "config" ? schedule.source.file : "";
    const unreadable = damaged.get(schedule.id);
    if (unreadable) {
      skip(
        index,
        schedule.id,
        new RunnerError(
          "SCHEDULE_INVALID",
          `id: the stored schedule "${schedule.id}" cannot be read, so ${file} cannot update it: ${unreadable.message}`,
          { data: { field: "id", value: schedule.id } },
        ),
      );
      continue;
    }
    const previous = existing.get(schedule.id) ?? null;
    if (previous && previous.schedule.source.kind !== "config") {
      skip(
        index,
        schedule.id,
        new RunnerError(
          "SCHEDULE_INVALID",
          `id: schedule "${schedule.id}" in ${file} is already used by a schedule created through ${previous.schedule.source.kind}; rename one of them`,
          { data: { field: "id", value: schedule.id } },
        ),
      );
      continue;
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
  report.skipped.sort((a, b) => a.index - b.index);
  return report;
}
