import { RunnerError } from "../shared/index.js";
import { SCHEDULE_ID_PATTERN } from "./schedule.js";

/** Default key prefix (the config's `redis.key_prefix`). */
export const DEFAULT_SCHEDULER_PREFIX = "echo";

/**
 * Every Redis key of the scheduler. They share the hash tag `{sched}`, so one Lua script may touch a
 * schedule, its state, the due index and a tick claim together on a Redis Cluster too. Schedules
 * change at human speed and fire at most a few thousand times a minute: one slot is enough.
 */
export class SchedulerKeys {
  readonly base: string;

  constructor(prefix: string) {
    if (!/^[a-zA-Z0-9_:-]{1,64}$/.test(prefix) || prefix.endsWith(":")) {
      throw new RunnerError(
        "SCHEDULE_INVALID",
        `scheduler key prefix must be 1-64 letters, digits, _ : - and not end with ":", got ${JSON.stringify(prefix)}`,
      );
    }
    this.base = `${prefix}:{sched}:`;
  }

  /** Hash: schedule id → stored schedule record (JSON). */
  get defs(): string {
    return `${this.base}defs`;
  }
  /** Hash: schedule id → the newest tick (ms) that was dealt with (fired, skipped, queued, missed). */
  get through(): string {
    return `${this.base}through`;
  }
  /** Sorted set: schedule id by its next tick (ms). Only enabled schedules are in it. */
  get due(): string {
    return `${this.base}due`;
  }
  /** Hash: schedule id → grant record (JSON). */
  get grants(): string {
    return `${this.base}grants`;
  }
  /** Set of schedule ids with queued ticks (overlap `queue`). */
  get queuedIndex(): string {
    return `${this.base}queued-index`;
  }
  /** The leader lock (one process fires and reconciles at a time). */
  get lock(): string {
    return `${this.base}lock`;
  }
  /** Hash: run id → tick (ms) of the runs of one schedule that are enqueued and not finished. */
  active(id: string): string {
    return `${this.base}active:${checked(id)}`;
  }
  /** Sorted set: run id by finish time, of recently finished runs of one schedule (capped). */
  finished(id: string): string {
    return `${this.base}finished:${checked(id)}`;
  }
  /** List of ticks (ms) waiting for the active run to finish, oldest first. */
  queued(id: string): string {
    return `${this.base}queued:${checked(id)}`;
  }
  /** Capped list of history entries (JSON), newest first. */
  history(id: string): string {
    return `${this.base}history:${checked(id)}`;
  }
  /** The claim of one tick: `sched:<id>:<instant ms>`, SET NX with a TTL before anything fires. */
  claim(id: string, instant: number | string): string {
    return `${this.base}sched:${checked(id)}:${instant}`;
  }
}

function checked(id: string): string {
  if (!SCHEDULE_ID_PATTERN.test(id)) {
    throw new RunnerError(
      "SCHEDULE_INVALID",
      `id: ${JSON.stringify(id)} is not a schedule id (letters, digits, _ . - ; 1-64 characters)`,
      { data: { field: "id", value: id } },
    );
  }
  return id;
}
