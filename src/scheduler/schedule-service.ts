import { type Clock, isRunnerError, RunnerError, systemClock } from "../shared/index.js";
import { timetableFor } from "./cron-timetable.js";
import { type CronAuthorization, evaluateGrant } from "./grants.js";
import type { Grant, HistoryEntry, StoredSchedule } from "./records.js";
import { type AgentQueuePort, enqueueScheduledRun, manualRunId, scheduledRunPayload } from "./run-job.js";
import { parseSchedule, type Schedule, type ScheduleInput } from "./schedule.js";
import {
  type CronjobApproval,
  endGrant,
  grantAfterChange,
  humanGrant,
  nextRevision,
  nextTickOf,
  timetableChanged,
} from "./schedule-changes.js";
import { type DamagedSchedule, ScheduleStore } from "./schedule-store.js";

/** A schedule with its state, as list / show return it. */
export interface ScheduleView {
  schedule: Schedule;
  specHash: string;
  rev: number;
  createdAt: number;
  updatedAt: number;
  /** The next tick (ms), null when paused. */
  nextTick: number | null;
  /** The newest tick dealt with (ms). */
  through: number | null;
  grant: Grant | null;
  /** Whether a run starting now would be cron-authorised, and why. */
  authorization: CronAuthorization;
}

/** Fields a change may set (id, version and source are fixed). */
export type SchedulePatch = Partial<Omit<ScheduleInput, "v" | "id" | "source">>;

/** Options of {@link ScheduleService}. */
export interface ScheduleServiceOptions {
  store: ScheduleStore;
  /** The `agent` queue; needed by runNow only. */
  agentQueue?: AgentQueuePort;
  clock?: Clock;
}

/**
 * The schedule API of the `cronjob` tool and the CLI: create, list, update, pause, resume, delete,
 * revoke, run now; plus the two calls of the agent worker (resolveCronAuthorization when a run
 * starts, markScheduleRunFinished when it ends). Config schedules are changed only by
 * reconcileConfigSchedules: update and delete refuse them (pause, resume, revoke, run-now work).
 */
export class ScheduleService {
  readonly store: ScheduleStore;
  readonly clock: Clock;
  readonly #agentQueue: AgentQueuePort | undefined;

  constructor(options: ScheduleServiceOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.#agentQueue = options.agentQueue;
  }

  /**
   * Creates a schedule (source cronjob or cli). It gets a grant only when `approval` is a human
   * approval of the cronjob call, with the approver.
   */
  async create(input: ScheduleInput, approval: CronjobApproval): Promise<ScheduleView> {
    const schedule = parseSchedule(input);
    if (schedule.source.kind === "config") {
      throw new RunnerError(
        "SCHEDULE_INVALID",
        "source: config schedules are created from the config file at start, not through this API",
        { data: { field: "source" } },
      );
    }
    const now = this.clock.now();
    const stored = nextRevision(schedule, now, null);
    const actor = approval.actor ?? approval.approver ?? schedule.owner;
    const history: HistoryEntry[] = [{ v: 1, kind: "created", at: now, actor }];
    let grant: Grant | undefined;
    if (approval.approvalSource === "human") {
      grant = humanGrant(stored, approval, now);
      history.push({ v: 1, kind: "granted", at: now, actor: grant.approver! });
    }
    await this.store.save(stored, {
      expectedRev: 0,
      through: now,
      nextTick: nextTickOf(schedule, now),
      grant: grant ?? null,
      history,
    });
    return this.#view(stored);
  }

  /** The readable schedules of {@link listWithDamaged} (the cronjob tool's list; views use that). */
  async list(): Promise<ScheduleView[]> {
    return (await this.listWithDamaged()).views;
  }

  /**
   * Every schedule, and each that cannot be read (its record, or its grant, does not decode): one
   * damaged record never stops the list, and is named rather than hidden.
   */
  async listWithDamaged(): Promise<{ views: ScheduleView[]; damaged: DamagedSchedule[] }> {
    const { schedules, damaged } = await this.store.listWithDamaged();
    const read = await Promise.all(
      schedules.map((stored) =>
        this.#view(stored).catch((err: unknown) => {
          if (!isRunnerError(err, "SCHEDULE_INVALID")) throw err;
          return { id: stored.schedule.id, code: err.code, message: err.message };
        }),
      ),
    );
    const views = read.filter((r): r is ScheduleView => "schedule" in r);
    for (const r of read) if (!("schedule" in r)) damaged.push(r);
    return { views, damaged: damaged.sort((a, b) => a.id.localeCompare(b.id)) };
  }

  async get(id: string): Promise<ScheduleView | null> {
    const stored = await this.store.get(id);
    return stored ? this.#view(stored) : null;
  }

  /**
   * Changes a schedule. A change of its spec voids its grant unless `approval` is a human approval,
   * which issues a new one. A new cron or time zone restarts its ticks from now.
   */
  async update(id: string, patch: SchedulePatch, approval: CronjobApproval): Promise<ScheduleView> {
    const previous = await this.#require(id);
    this.#refuseConfig(previous, "update");
    const now = this.clock.now();
    const schedule = parseSchedule({
      ...previous.schedule,
      ...patch,
      id,
      v: 1,
      source: previous.schedule.source,
    });
    const stored = nextRevision(schedule, now, previous);
    const actor = approval.actor ?? approval.approver ?? "unknown";
    const history: HistoryEntry[] = [{ v: 1, kind: "updated", at: now, actor }];
    const grant =
      stored.specHash === previous.specHash && approval.approvalSource !== "human"
        ? undefined
        : grantAfterChange(stored, await this.store.getGrant(id), approval, now, history);
    const restart =
      timetableChanged(previous.schedule, schedule) || (schedule.enabled && !previous.schedule.enabled);
    const through = restart ? now : ((await this.store.through(id)) ?? now);
    await this.store.save(stored, {
      expectedRev: previous.rev,
      ...(restart ? { through } : {}),
      nextTick: nextTickOf(schedule, through),
      ...(grant === undefined ? {} : { grant }),
      history,
    });
    return this.#view(stored);
  }

  /** Stops firing until resumed. Ticks while paused are not caught up. The grant is kept. */
  async pause(id: string, actor: string): Promise<ScheduleView> {
    return this.#setEnabled(id, false, actor);
  }

  /** Fires again from now on. */
  async resume(id: string, actor: string): Promise<ScheduleView> {
    return this.#setEnabled(id, true, actor);
  }

  /** Deletes a schedule with its state and history. Returns false when it did not exist. */
  async delete(id: string): Promise<boolean> {
    const previous = await this.store.get(id);
    if (!previous) return false;
    this.#refuseConfig(previous, "delete");
    return this.store.delete(id);
  }

  /**
   * Revokes the schedule's grant: every run that starts afterwards is not cron-authorised (runs
   * already started keep what they were given). Returns the revoked grant, or null when there was
   * no active grant. A revoked config grant stays revoked across restarts until the spec changes.
   */
  async revoke(id: string, actor: string): Promise<Grant | null> {
    await this.#require(id);
    const grant = await this.store.getGrant(id);
    if (grant?.status !== "active") return null;
    const now = this.clock.now();
    const revoked = endGrant(grant, "revoked", now, actor);
    await this.store.setGrant(id, revoked, [{ v: 1, kind: "revoked", at: now, actor }]);
    return revoked;
  }

  /** The next `count` ticks after `from` (default now), earliest first, whether or not it is paused. */
  async nextFires(id: string, count: number, from = this.clock.now()): Promise<number[]> {
    const { schedule } = await this.#require(id);
    return timetableFor(schedule.cron, schedule.timezone).upcoming(from, count);
  }

  async history(id: string, limit = 50): Promise<HistoryEntry[]> {
    return this.store.history(id, limit);
  }

  /**
   * Enqueues one run now, outside the timetable (an operator's explicit request: the overlap policy
   * does not hold it back, but the run counts as active for the ticks that follow).
   */
  async runNow(id: string, actor: string): Promise<{ runId: string }> {
    if (!this.#agentQueue) {
      throw new RunnerError("INTERNAL", "runNow needs the agent queue (ScheduleServiceOptions.agentQueue)");
    }
    const stored = await this.#require(id);
    const now = this.clock.now();
    const runId = manualRunId(id, now);
    await enqueueScheduledRun(this.#agentQueue, scheduledRunPayload(stored.schedule, now, runId, now), {
      delayMs: 0,
    });
    await this.store.addActive(id, runId, now);
    await this.store.appendHistory(id, [{ v: 1, kind: "run-now", at: now, tick: now, runId, actor }]);
    return { runId };
  }

  /**
   * For the worker, when a scheduled run STARTS (each attempt, not at enqueue): whether the run is
   * cron-authorised, from the schedule's grant as it is at `now`.
   */
  async resolveCronAuthorization(scheduleId: string, now: number): Promise<CronAuthorization> {
    const [stored, grant] = await Promise.all([this.store.get(scheduleId), this.store.getGrant(scheduleId)]);
    return evaluateGrant(stored, grant, now);
  }

  /**
   * For the worker, when a scheduled run ENDS (completed or failed for good): it no longer counts as
   * active for the overlap policy, and a queued tick may run. Idempotent.
   */
  async markScheduleRunFinished(scheduleId: string, runId: string): Promise<void> {
    const now = this.clock.now();
    await this.store.finishRun(scheduleId, runId, now, { v: 1, kind: "finished", at: now, runId });
  }

  async #setEnabled(id: string, enabled: boolean, actor: string): Promise<ScheduleView> {
    const previous = await this.#require(id);
    if (previous.schedule.enabled === enabled) return this.#view(previous);
    const now = this.clock.now();
    const stored = nextRevision({ ...previous.schedule, enabled }, now, previous);
    await this.store.save(stored, {
      expectedRev: previous.rev,
      ...(enabled ? { through: now } : {}),
      nextTick: nextTickOf(stored.schedule, now),
      history: [{ v: 1, kind: enabled ? "resumed" : "paused", at: now, actor }],
    });
    return this.#view(stored);
  }

  async #require(id: string): Promise<StoredSchedule> {
    const stored = await this.store.get(id);
    if (!stored) {
      throw new RunnerError("SCHEDULE_INVALID", `id: no schedule "${id}"`, {
        data: { field: "id", value: id },
      });
    }
    return stored;
  }

  #refuseConfig(stored: StoredSchedule, what: string): void {
    const source = stored.schedule.source;
    if (source.kind === "config") {
      throw new RunnerError(
        "SCHEDULE_INVALID",
        `schedule "${stored.schedule.id}" is defined in the config file ${source.file}; ${what} it there (it is reconciled at start)`,
        { data: { field: "source", file: source.file } },
      );
    }
  }

  async #view(stored: StoredSchedule): Promise<ScheduleView> {
    const id = stored.schedule.id;
    const [grant, nextTick, through] = await Promise.all([
      this.store.getGrant(id),
      this.store.nextTick(id),
      this.store.through(id),
    ]);
    return {
      schedule: stored.schedule,
      specHash: stored.specHash,
      rev: stored.rev,
      createdAt: stored.createdAt,
      updatedAt: stored.updatedAt,
      nextTick,
      through,
      grant,
      authorization: evaluateGrant(stored, grant, this.clock.now()),
    };
  }
}

/** The two calls the agent worker makes for a run whose origin is a schedule. */
export interface ScheduleRunHooks {
  /** When the run starts (every attempt): its `cronAuthorized`, from the grant as it is now. */
  resolveCronAuthorization(scheduleId: string, now: number): Promise<CronAuthorization>;
  /** When the run ends (completed, or failed for good). Idempotent. */
  markScheduleRunFinished(scheduleId: string, runId: string): Promise<void>;
}

/** The worker's hooks on one Redis connection and key prefix (config `redis.key_prefix`). */
export function createScheduleRunHooks(options: {
  redis: ScheduleStore["redis"];
  keyPrefix: string;
  clock?: Clock;
}): ScheduleRunHooks {
  const service = new ScheduleService({
    store: new ScheduleStore({ redis: options.redis, keyPrefix: options.keyPrefix }),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    resolveCronAuthorization: (scheduleId, now) => service.resolveCronAuthorization(scheduleId, now),
    markScheduleRunFinished: (scheduleId, runId) => service.markScheduleRunFinished(scheduleId, runId),
  };
}
