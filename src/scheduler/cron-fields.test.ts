import { describe, expect, it } from "vitest";
import { isRunnerError } from "../shared/index.js";
import { checkCronFields } from "./cron-fields.js";
import { CronTimetable } from "./cron-timetable.js";

function rejection(cron: string): { message: string; cronField?: string } {
  try {
    checkCronFields(cron);
  } catch (err) {
    expect(isRunnerError(err, "SCHEDULE_INVALID")).toBe(true);
    const e = err as { message: string; data: { field: string; cronField?: string } };
    expect(e.data.field).toBe("cron");
    return { message: e.message, ...(e.data.cronField ? { cronField: e.data.cronField } : {}) };
  }
  throw new Error(`expected ${JSON.stringify(cron)} to be rejected`);
}

describe("cron errors name the field in words", () => {
  it.each([
    { cron: "61 * * * *", field: "minute", says: /invalid minute field "61": 61 is outside 0-59/ },
    { cron: "0 24 * * *", field: "hour", says: /invalid hour field "24": 24 is outside 0-23/ },
    {
      cron: "0 0 32 * *",
      field: "day of month",
      says: /invalid day of month field "32": 32 is outside 1-31/,
    },
    { cron: "0 0 1 13 *", field: "month", says: /invalid month field "13": 13 is outside 1-12/ },
    { cron: "0 0 * uar *", field: "month", says: /invalid month field "uar": .*jan-dec/ },
    { cron: "0 0 * * 8", field: "day of week", says: /invalid day of week field "8": 8 is outside 0-7/ },
    { cron: "0 0 * * sunday", field: "day of week", says: /invalid day of week field "sunday"/ },
    { cron: "61 0 0 * * *", field: "second", says: /invalid second field "61": 61 is outside 0-59/ },
    { cron: "0 61 0 * * *", field: "minute", says: /invalid minute field "61"/ },
    { cron: "5-2 * * * *", field: "minute", says: /the range starts at 5, after its end 2/ },
    { cron: "*/0 * * * *", field: "minute", says: /a step must be a whole number of at least 1/ },
    { cron: "1- * * * *", field: "minute", says: /invalid minute field "1-"/ },
    { cron: "/5 * * * *", field: "minute", says: /invalid minute field "\/5"/ },
    { cron: "0 0 1-40 * *", field: "day of month", says: /the range 1-40 goes outside 1-31/ },
    {
      cron: "0 0 31 4 *",
      field: "day of month",
      says: /never fires: the day of month field "31" names no day of the month field "4" \(April\)/,
    },
    { cron: "0 0 30 2 *", field: "day of month", says: /never fires: .*February/ },
  ])("$cron: the $field field", ({ cron, field, says }) => {
    const { message, cronField } = rejection(cron);
    expect(cronField).toBe(field);
    expect(message).toMatch(says);
  });

  it.each([
    ["@daily", /macro.*"0 0 \* \* \*"/],
    ["@every 5m", /no @ macros/],
    ["* * * * * * *", /has 7 fields; use 5 fields .* or 6 with seconds first/],
    ["* *", /has 2 fields/],
  ])("%s is refused with the forms that work", (cron, says) => {
    expect(rejection(cron).message).toMatch(says);
  });

  it("never leaks the parser's internals into a message", () => {
    const inputs = [
      "1- * * * *",
      "-1 * * * *",
      "/5 * * * *",
      "0 0 L-3 * *",
      "0 0 * jan- *",
      "0 0 * * mon-",
      "* * * uar *",
      "0 0 * * sunday",
      "1,,2 * * * *",
      "0 0 * * L",
      "0 0 W * *",
      "0 0 * * 1#0",
      "1-2-3 * * * *",
    ];
    for (const cron of inputs) {
      const { message } = rejection(cron);
      expect(message, cron).not.toMatch(
        /NaN|alias|Constraint error|Validation error|Invalid characters|CronDayOfWeek|got value/,
      );
      expect(message, cron).toMatch(/(second|minute|hour|day of month|month|day of week) field/);
    }
  });

  it("accepts the six-field form with seconds first, and reads day of month OR day of week", () => {
    expect(checkCronFields(" 30  0 9 * * * ")).toBe("30 0 9 * * *");
    const seconds = new CronTimetable("30 0 9 * * *", "UTC");
    expect(new Date(seconds.next(Date.UTC(2026, 0, 1))).toISOString()).toBe("2026-01-01T09:00:30.000Z");
    // "0 0 13 * 5": the 13th of every month and every Friday (either matches), as in Vixie cron.
    const days = new CronTimetable("0 0 13 * 5", "UTC")
      .upcoming(Date.UTC(2026, 0, 1), 4)
      .map((t) => new Date(t).toISOString().slice(0, 10));
    expect(days).toEqual(["2026-01-02", "2026-01-09", "2026-01-13", "2026-01-16"]);
  });
});
