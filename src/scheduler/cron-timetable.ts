import { type CronExpression, CronExpressionParser } from "cron-parser";
import { RunnerError } from "../shared/index.js";
import { checkCronFields } from "./cron-fields.js";
import { assertTimeZone, resolveWallTime, wallHighWater } from "./time-zone.js";

/** Most iterator steps one next/previous query may take (a per-second cron crossing a repeated hour
 * needs 3,600). Past it the expression is treated as one that never fires. */
const MAX_STEPS = 20_000;
/** Entries kept per memo of one timetable. */
const MEMO_MAX = 1000;

/**
 * The fire instants of a cron expression in a time zone, with the DST rules of docs/DESIGN.md §9:
 * a wall-clock time that occurs twice (clocks go back) fires once, at its first occurrence; one that
 * does not exist (clocks go forward) fires at the first valid instant after the gap — the instant
 * of the jump. Several skipped times collapse into that one firing.
 *
 * cron-parser validates and matches the expression; it walks a floating (zone-less) wall-clock
 * axis, and this class maps each wall time onto instants itself. (cron-parser's own `tz` option
 * fires a repeated `*\/30` twice and moves a skipped 02:30 to 03:30.)
 */
export class CronTimetable {
  readonly cron: string;
  readonly timezone: string;
  // Answers are pure functions of the arguments, and schedules sharing an expression ask the same
  // questions in the same pass (same watermark, same now): memoised, bounded.
  readonly #nextMemo = new Map<number, number>();
  readonly #betweenMemo = new Map<string, readonly number[]>();

  /** Validates; throws RunnerError SCHEDULE_INVALID naming the field (`cron` or `timezone`). */
  constructor(cron: string, timezone: string) {
    this.cron = normaliseCron(cron);
    assertTimeZone(timezone);
    this.timezone = timezone;
    // An expression that can never match (e.g. 31 April) fails here, not at its first firing.
    this.next(Date.UTC(2000, 0, 1));
  }

  /** The first fire instant strictly after `after` (ms). */
  next(after: number): number {
    const known = this.#nextMemo.get(after);
    if (known !== undefined) return known;
    const instant = this.#computeNext(after);
    if (this.#nextMemo.size >= MEMO_MAX) this.#nextMemo.clear();
    this.#nextMemo.set(after, instant);
    return instant;
  }

  #computeNext(after: number): number {
    const iterator = this.#iterator(wallHighWater(after, this.timezone) - 1);
    for (let step = 0; step < MAX_STEPS; step++) {
      const instant = resolveWallTime(this.#step(iterator, "next"), this.timezone).instant;
      // A repeated wall time whose first occurrence is already past has fired: skip it.
      if (instant > after) return instant;
    }
    throw this.#neverFires();
  }

  /** The next `count` fire instants strictly after `after`, earliest first. */
  upcoming(after: number, count: number): number[] {
    const out: number[] = [];
    let cursor = after;
    for (let i = 0; i < count; i++) {
      cursor = this.next(cursor);
      out.push(cursor);
    }
    return out;
  }

  /**
   * Fire instants in (`after`, `until`], newest first, at most `limit` of them. Bounded by the
   * limit, so a long outage of a per-second schedule costs `limit` steps, not one per missed tick.
   */
  between(after: number, until: number, limit: number): number[] {
    const key = `${after}:${until}:${limit}`;
    const known = this.#betweenMemo.get(key);
    if (known) return [...known];
    const out = this.#computeBetween(after, until, limit);
    if (this.#betweenMemo.size >= MEMO_MAX) this.#betweenMemo.clear();
    this.#betweenMemo.set(key, out);
    return [...out];
  }

  #computeBetween(after: number, until: number, limit: number): number[] {
    const out: number[] = [];
    if (until <= after || limit <= 0) return out;
    const iterator = this.#iterator(wallHighWater(until, this.timezone));
    for (let step = 0; step < MAX_STEPS && out.length < limit; step++) {
      let wall: number;
      try {
        wall = this.#step(iterator, "prev");
      } catch {
        break;
      }
      const instant = resolveWallTime(wall, this.timezone).instant;
      if (instant > until) continue;
      if (instant <= after) break;
      // Skipped wall times collapse onto the instant after the gap: keep one.
      if (out[out.length - 1] !== instant) out.push(instant);
    }
    return out;
  }

  #iterator(wall: number): CronExpression {
    return CronExpressionParser.parse(this.cron, { tz: "UTC", currentDate: new Date(wall) });
  }

  #step(iterator: CronExpression, direction: "next" | "prev"): number {
    try {
      return (direction === "next" ? iterator.next() : iterator.prev()).getTime();
    } catch (err) {
      throw this.#neverFires(err);
    }
  }

  #neverFires(cause?: unknown): RunnerError {
    return new RunnerError(
      "SCHEDULE_INVALID",
      `cron: ${JSON.stringify(this.cron)} never fires: no instant within the search window matches every field`,
      {
        data: { field: "cron", value: this.cron },
        cause,
      },
    );
  }
}

/** Trims and single-spaces the expression and checks it; throws SCHEDULE_INVALID (field `cron`). */
export function normaliseCron(cron: string): string {
  return checkCronFields(cron);
}

const cache = new Map<string, CronTimetable>();
const CACHE_MAX = 10_000;

/** A cached {@link CronTimetable} (schedules share few distinct expressions). */
export function timetableFor(cron: string, timezone: string): CronTimetable {
  const key = `${cron}\u0000${timezone}`;
  let table = cache.get(key);
  if (!table) {
    table = new CronTimetable(cron, timezone);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, table);
  }
  return table;
}
