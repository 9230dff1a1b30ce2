import { describe, expect, it } from "vitest";
import { isRunnerError } from "../shared/index.js";
import { CronTimetable } from "./cron-timetable.js";

const at = (iso: string) => Date.parse(iso);
const iso = (instants: number[]) => instants.map((ms) => new Date(ms).toISOString());

describe("CronTimetable DST rules", () => {
  // Europe/Berlin 2025: clocks go forward at 01:00Z on 30 March (02:00 CET -> 03:00 CEST) and back at
  // 01:00Z on 26 October (03:00 CEST -> 02:00 CET). America/New_York 2025: forward at 07:00Z on
  // 9 March (02:00 EST -> 03:00 EDT), back at 06:00Z on 2 November (02:00 EDT -> 01:00 EST).
  it.each([
    {
      name: "a skipped 02:30 in Berlin fires at 03:00 CEST, the instant of the jump",
      cron: "30 2 * * *",
      tz: "Europe/Berlin",
      from: "2025-03-29T00:00:00.000Z",
      expected: ["2025-03-29T01:30:00.000Z", "2025-03-30T01:00:00.000Z", "2025-03-31T00:30:00.000Z"],
    },
    {
      name: "every half hour in Berlin collapses the skipped 02:00 and 02:30 into one firing at 03:00",
      cron: "*/30 * * * *",
      tz: "Europe/Berlin",
      from: "2025-03-30T00:15:00.000Z",
      expected: ["2025-03-30T00:30:00.000Z", "2025-03-30T01:00:00.000Z", "2025-03-30T01:30:00.000Z"],
    },
    {
      name: "a repeated 02:30 in Berlin fires once, at its first (CEST) occurrence",
      cron: "30 2 * * *",
      tz: "Europe/Berlin",
      from: "2025-10-25T00:00:00.000Z",
      expected: ["2025-10-25T00:30:00.000Z", "2025-10-26T00:30:00.000Z", "2025-10-27T01:30:00.000Z"],
    },
    {
      name: "every half hour in Berlin does not fire the repeated 02:00 and 02:30 CET again",
      cron: "*/30 * * * *",
      tz: "Europe/Berlin",
      from: "2025-10-25T23:45:00.000Z",
      expected: [
        "2025-10-26T00:00:00.000Z",
        "2025-10-26T00:30:00.000Z",
        "2025-10-26T02:00:00.000Z",
        "2025-10-26T02:30:00.000Z",
      ],
    },
    {
      name: "a skipped 02:30 in New York fires at 03:00 EDT",
      cron: "30 2 * * *",
      tz: "America/New_York",
      from: "2025-03-08T12:00:00.000Z",
      expected: ["2025-03-09T07:00:00.000Z", "2025-03-10T06:30:00.000Z"],
    },
    {
      name: "a repeated 01:30 in New York fires once, at its first (EDT) occurrence",
      cron: "30 1 * * *",
      tz: "America/New_York",
      from: "2025-11-01T12:00:00.000Z",
      expected: ["2025-11-02T05:30:00.000Z", "2025-11-03T06:30:00.000Z"],
    },
    {
      name: "every half hour in New York skips the repeated 01:00 and 01:30 EST",
      cron: "0,30 * * * *",
      tz: "America/New_York",
      from: "2025-11-02T04:45:00.000Z",
      expected: ["2025-11-02T05:00:00.000Z", "2025-11-02T05:30:00.000Z", "2025-11-02T07:00:00.000Z"],
    },
    {
      name: "from inside the repeated hour in New York the next firing is 02:00 EST",
      cron: "0,30 * * * *",
      tz: "America/New_York",
      from: "2025-11-02T06:10:00.000Z",
      expected: ["2025-11-02T07:00:00.000Z"],
    },
    {
      name: "six fields fire on seconds",
      cron: "*/20 * * * * *",
      tz: "UTC",
      from: "2025-01-01T00:00:00.500Z",
      expected: ["2025-01-01T00:00:20.000Z", "2025-01-01T00:00:40.000Z", "2025-01-01T00:01:00.000Z"],
    },
  ])("$name", ({ cron, tz, from, expected }) => {
    expect(iso(new CronTimetable(cron, tz).upcoming(at(from), expected.length))).toEqual(expected);
  });

  it.each([
    {
      name: "includes first-pass ticks when the query ends inside New York's repeated hour",
      cron: "0,30 * * * *",
      tz: "America/New_York",
      after: "2025-11-02T04:45:00.000Z",
      until: "2025-11-02T06:10:00.000Z",
      expected: ["2025-11-02T05:30:00.000Z", "2025-11-02T05:00:00.000Z"],
    },
    {
      name: "lists a Berlin spring-forward gap once, newest first",
      cron: "*/30 * * * *",
      tz: "Europe/Berlin",
      after: "2025-03-30T00:15:00.000Z",
      until: "2025-03-30T01:45:00.000Z",
      expected: ["2025-03-30T01:30:00.000Z", "2025-03-30T01:00:00.000Z", "2025-03-30T00:30:00.000Z"],
    },
    {
      name: "includes a tick exactly at the end of the range and excludes one at its start",
      cron: "0 * * * *",
      tz: "UTC",
      after: "2025-01-01T00:00:00.000Z",
      until: "2025-01-01T02:00:00.000Z",
      expected: ["2025-01-01T02:00:00.000Z", "2025-01-01T01:00:00.000Z"],
    },
  ])("between $name", ({ cron, tz, after, until, expected }) => {
    expect(iso(new CronTimetable(cron, tz).between(at(after), at(until), 10))).toEqual(expected);
  });

  it("stops listing at the limit", () => {
    const table = new CronTimetable("* * * * * *", "UTC");
    expect(table.between(0, at("2025-01-01T00:00:00Z"), 3)).toHaveLength(3);
  });

  it("agrees with next() over a whole DST week, fired tick by tick", () => {
    const table = new CronTimetable("*/15 * * * *", "America/New_York");
    const start = at("2025-10-30T00:00:00Z");
    const end = at("2025-11-05T00:00:00Z");
    const forward = table.upcoming(start, 2000).filter((t) => t <= end);
    expect(table.between(start, end, 5000).reverse()).toEqual(forward);
    expect(new Set(forward).size).toBe(forward.length);
  });
});

describe("CronTimetable validation", () => {
  it.each([
    { cron: "* * *", tz: "UTC", field: "cron", message: /3 fields/ },
    { cron: "* * * * * * *", tz: "UTC", field: "cron", message: /7 fields/ },
    {
      cron: "61 * * * *",
      tz: "UTC",
      field: "cron",
      message: /invalid minute field "61": 61 is outside 0-59/,
    },
    { cron: "0 0 31 4 *", tz: "UTC", field: "cron", message: /never fires: .*"31".*April/ },
    { cron: "H 2 * * *", tz: "UTC", field: "cron", message: /hashed/ },
    { cron: "@daily", tz: "UTC", field: "cron", message: /macro.*"0 0 \* \* \*"/ },
    { cron: "0 2 * * *", tz: "Mars/Olympus", field: "timezone", message: /unknown time zone/ },
    { cron: "0 2 * * *", tz: "+05:00", field: "timezone", message: /IANA/ },
  ])("rejects cron $cron in $tz naming the field $field", ({ cron, tz, field, message }) => {
    let caught: unknown;
    try {
      new CronTimetable(cron, tz);
    } catch (err) {
      caught = err;
    }
    expect(isRunnerError(caught, "SCHEDULE_INVALID")).toBe(true);
    expect((caught as Error).message).toMatch(new RegExp(`^${field}: `));
    expect((caught as Error).message).toMatch(message);
    expect((caught as { data: { field: string } }).data.field).toBe(field);
  });

  it("accepts weekday names and normalises whitespace", () => {
    expect(new CronTimetable("  0  2 * *   MON-FRI ", "UTC").cron).toBe("0 2 * * MON-FRI");
  });
});
