import { RunnerError } from "../shared/index.js";

/**
 * Time-zone arithmetic on top of Intl (the ICU data Node ships): the UTC offset of a zone at an
 * instant, and the instant a wall-clock time denotes. A "wall time" here is a local date and time
 * written as milliseconds as if it were UTC (a floating time), which is what the cron iterator walks.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      era: "short",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when Intl knows the zone (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isKnownTimeZone(timeZone: string): boolean {
  if (timeZone.length === 0 || timeZone.length > 64) return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Throws SCHEDULE_INVALID naming the field when the zone is unknown. */
export function assertTimeZone(timeZone: string, field = "timezone"): void {
  if (!isKnownTimeZone(timeZone)) {
    throw new RunnerError(
      "SCHEDULE_INVALID",
      `${field}: unknown time zone ${JSON.stringify(timeZone)}; use an IANA name such as "Europe/Berlin", "America/New_York" or "UTC"`,
      { data: { field, value: timeZone } },
    );
  }
}

/** The wall time (floating ms) of `instant` in `timeZone`, whole seconds (sub-second part kept). */
export function wallTimeAt(instant: number, timeZone: string): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(instant));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const era = parts.find((p) => p.type === "era")?.value;
  const year = era === "BC" || era === "B" ? 1 - get("year") : get("year");
  const ms = ((instant % 1000) + 1000) % 1000;
  const wall = Date.UTC(year, get("month") - 1, get("day"), get("hour"), get("minute"), get("second"), ms);
  return wall;
}

/** UTC offset (ms, east positive) of `timeZone` at `instant`. */
export function offsetAt(instant: number, timeZone: string): number {
  return wallTimeAt(instant, timeZone) - instant;
}

/** How a wall time maps onto instants. */
export type WallTimeResolution =
  | { kind: "unique"; instant: number }
  /** The wall time occurs twice (clocks went back): both instants, earlier first. */
  | { kind: "repeated"; instant: number; later: number }
  /** The wall time does not exist (clocks went forward): `instant` is the first valid one after it. */
  | { kind: "skipped"; instant: number };

const DAY_MS = 86_400_000;

/**
 * Resolves a wall time to instants. Assumes at most one offset change within a day either side,
 * which holds for every zone in the tz database.
 */
export function resolveWallTime(wall: number, timeZone: string): WallTimeResolution {
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const candidates = [...new Set([wall - before, wall - after])]
    .filter((instant) => wallTimeAt(instant, timeZone) === wall)
    .sort((a, b) => a - b);
  const [first, second] = candidates;
  if (first !== undefined && second !== undefined) return { kind: "repeated", instant: first, later: second };
  if (first !== undefined) return { kind: "unique", instant: first };
  // A gap: the offset grew from `before` to `after` somewhere in [wall - after, wall - before].
  return { kind: "skipped", instant: transitionInstant(wall - after, wall - before, after, timeZone) };
}

/**
 * One past the latest wall time reached at or before `instant`. Normally that is the wall time of
 * `instant` + 1 ms; in the hour after clocks went back it is the end of the first pass through the
 * repeated hour, whose wall times are all in the past although they are later than the clock shows.
 */
export function wallHighWater(instant: number, timeZone: string): number {
  const now = wallTimeAt(instant, timeZone) + 1;
  const earlier = offsetAt(instant - DAY_MS, timeZone);
  const current = offsetAt(instant, timeZone);
  if (earlier <= current) return now;
  const backAt = transitionInstant(instant - DAY_MS, instant, current, timeZone);
  return Math.max(now, backAt + earlier);
}

/** The first instant in [low, high] whose offset is `target` (binary search to the millisecond). */
function transitionInstant(low: number, high: number, target: number, timeZone: string): number {
  let lo = low;
  let hi = high;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(mid, timeZone) === target) hi = mid;
    else lo = mid;
  }
  return offsetAt(lo, timeZone) === target ? lo : hi;
}
