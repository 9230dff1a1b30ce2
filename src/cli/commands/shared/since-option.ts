import { RunnerError } from "../../../shared/index.js";

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `--since` (or `--until`, named by `option`): a duration back from now (`90s`, `30m`, `2h`, `7d`)
 * or an ISO-8601 time (`2026-12-03T02:00:00Z`); returns epoch ms. Anything else is a usage error
 * naming both forms.
 */
export function parseSince(text: string, now: number, option = "--since"): number {
  const duration = /^(\d{1,9})([smhd])$/.exec(text.trim());
  if (duration) return now - Number(duration[1]) * (UNIT_MS[duration[2] as string] as number);
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) return at;
  }
  throw new RunnerError(
    "CLI_USAGE",
    `${option} "${text}" is neither a duration (90s, 30m, 2h, 7d) nor an ISO-8601 time (2026-12-03T02:00:00Z)`,
  );
}
