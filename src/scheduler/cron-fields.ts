import { CronExpressionParser } from "cron-parser";
import { RunnerError } from "../shared/index.js";

/** The fields of the five-field form (minute first). The six-field form puts `second` before them. */
export const CRON_FIELDS = ["minute", "hour", "day of month", "month", "day of week"] as const;
export type CronField = "second" | (typeof CRON_FIELDS)[number];

/** What each field accepts, in words. */
const ALLOWED: Record<CronField, string> = {
  second: "0-59",
  minute: "0-59",
  hour: "0-23",
  "day of month": "1-31 or L (the last day)",
  month: "1-12 or jan-dec",
  "day of week": "0-7 (0 and 7 are Sunday) or sun-sat, nL (last n-day), n#k (k-th n-day)",
};
const SYNTAX = "*, a list a,b, a range a-b, a step */n or a-b/n";

/** The documented forms, for messages. */
export const CRON_FORMS =
  'use 5 fields "minute hour day-of-month month day-of-week" (e.g. "0 2 * * *") or 6 with seconds first ("second minute hour day-of-month month day-of-week")';

/** Macros cron-parser would accept but this runner does not: each with the five fields to write instead. */
const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const MONTH_NAMES = [
  "",
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function tryParse(expression: string): Error | null {
  try {
    CronExpressionParser.parse(expression, { tz: "UTC", currentDate: new Date(Date.UTC(2000, 0, 1)) });
    return null;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/**
 * Why the parser refused one field, in this runner's words. Only numbers are taken from the parser's
 * message (matched as digits, so nothing like `NaN-NaN` or an alias it guessed gets through).
 */
function fieldReason(parserMessage: string, value: string): string {
  const outside = /got value (\d+) expected range (\d+)-(\d+)/.exec(parserMessage);
  if (outside) return `${outside[1]} is outside ${outside[2]}-${outside[3]}`;
  const wide = /got range (\d+)-(\d+) expected range (\d+)-(\d+)/.exec(parserMessage);
  if (wide) return `the range ${wide[1]}-${wide[2]} goes outside ${wide[3]}-${wide[4]}`;
  const reversed = /min\((\d+)\) > max\((\d+)\)/.exec(parserMessage);
  if (reversed) return `the range starts at ${reversed[1]}, after its end ${reversed[2]}`;
  if (/repeat at every 0/.test(parserMessage)) return "a step must be a whole number of at least 1";
  if (/occurrence number/.test(parserMessage)) return "the k of n#k must be 1-5";
  return `${JSON.stringify(value)} is not a value, list, range or step this field accepts`;
}

/**
 * Checks a cron expression field by field and returns it normalised (trimmed, single spaces). Throws
 * RunnerError SCHEDULE_INVALID (data.field `cron`, data.cronField the field in words) whose message
 * names the field and what it accepts.
 */
export function checkCronFields(cron: string): string {
  const invalid = (why: string, cronField?: CronField) =>
    new RunnerError("SCHEDULE_INVALID", `cron: ${JSON.stringify(cron)} ${why}`, {
      data: { field: "cron", value: cron, ...(cronField ? { cronField } : {}) },
    });
  const trimmed = cron.trim();
  const macro = MACROS[trimmed.toLowerCase()];
  if (trimmed.startsWith("@")) {
    throw invalid(
      macro
        ? `is a macro, which is not supported; write its fields instead: "${macro}"`
        : `is not supported (no @ macros); ${CRON_FORMS}`,
    );
  }
  const fields = trimmed.split(/\s+/).filter(Boolean);
  if (fields.length !== 5 && fields.length !== 6) {
    throw invalid(`has ${fields.length} field${fields.length === 1 ? "" : "s"}; ${CRON_FORMS}`);
  }
  const names: readonly CronField[] = fields.length === 6 ? ["second", ...CRON_FIELDS] : CRON_FIELDS;
  // Hashed values ("H") depend on a seed: two processes could disagree on the instants.
  fields.forEach((field, i) => {
    if (/h/i.test(field.replace(/[a-z]{3}/gi, ""))) {
      throw invalid(
        `uses "H" (hashed) values in the ${names[i]} field, which are not supported; write the ${names[i]} explicitly`,
        names[i],
      );
    }
  });
  // Each field alone (the others "*"), so the error names the field that is wrong.
  fields.forEach((field, i) => {
    const alone = fields.map((other, j) => (j === i ? other : "*")).join(" ");
    const error = tryParse(alone);
    if (error) {
      const name = names[i]!;
      throw invalid(
        `has an invalid ${name} field ${JSON.stringify(field)}: ${fieldReason(error.message, field)}; the ${name} accepts ${ALLOWED[name]}, as ${SYNTAX}`,
        name,
      );
    }
  });
  const normalised = fields.join(" ");
  const whole = tryParse(normalised);
  if (whole) {
    const offset = fields.length - 5;
    const day = fields[offset + 2]!;
    const month = fields[offset + 3]!;
    const monthName = /^\d+$/.test(month) ? ` (${MONTH_NAMES[Number(month)] ?? month})` : "";
    throw invalid(
      /day of month/i.test(whole.message)
        ? `never fires: the day of month field "${day}" names no day of the month field "${month}"${monthName}`
        : "never fires: no instant matches every field",
      "day of month",
    );
  }
  return normalised;
}
