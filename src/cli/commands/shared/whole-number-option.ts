import { RunnerError } from "../../../shared/index.js";

/**
 * A whole-number option (`--limit`, `--timeout`, ...): the default when absent, otherwise digits only
 * within [min, max]; anything else is CLI_USAGE naming the option, the range and what was given.
 */
export function wholeNumberOption(
  name: string,
  text: string | undefined,
  range: { default: number; min: number; max: number; unit?: string },
): number {
  if (text === undefined) return range.default;
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    const unit = range.unit ? ` of ${range.unit}` : "";
    throw new RunnerError(
      "CLI_USAGE",
      `${name} must be a whole number${unit} from ${range.min} to ${range.max}, got "${text}"`,
    );
  }
  return n;
}
