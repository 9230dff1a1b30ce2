/** How one doctor check came out: `fail` makes the exit code 1, `warn` does not. */
export const DOCTOR_STATUSES = ["ok", "warn", "fail"] as const;
export type DoctorStatus = (typeof DOCTOR_STATUSES)[number];

/** One finding of `echo-runner doctor` (its `--json` prints a list of these). */
export interface DoctorCheck {
  /** What was checked: `config`, `redis`, `redis.persistence`, `smtp`, `tool:web_search`, ... */
  name: string;
  status: DoctorStatus;
  /** What was found, in a sentence. */
  reason: string;
  /** What to do about it; null when the check is ok. */
  fix: string | null;
}

export function ok(name: string, reason: string): DoctorCheck {
  return { name, status: "ok", reason, fix: null };
}

export function warn(name: string, reason: string, fix: string): DoctorCheck {
  return { name, status: "warn", reason, fix };
}

export function fail(name: string, reason: string, fix: string): DoctorCheck {
  return { name, status: "fail", reason, fix };
}
