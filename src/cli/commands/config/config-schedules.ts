import { type ConfigProblem, formatProblems, type LoadedConfig, loadConfig } from "../../../config/index.js";
import { type ConfigScheduleEntry, parseSchedule } from "../../../scheduler/index.js";
import { isRunnerError, RunnerError } from "../../../shared/index.js";
import { configScheduleEntry } from "../schedules/index.js";

/** `schedules[3] (id "nightly")`: where a schedule of the config is. */
function placeOf(loaded: LoadedConfig, i: number): string {
  const id = loaded.config.schedules[i]?.id;
  return `schedules[${i}]${id ? ` (id "${id}")` : ""}`;
}

/** The field a schedule error names, in the config's snake_case (`catchUp` is `catch_up`). */
function configField(field: unknown): string {
  const text = typeof field === "string" && field !== "" ? field : "(schedule)";
  return text.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * Checks every schedule of the config with the code `schedules add` uses ({@link parseSchedule}: the
 * cron expression field by field, the time zone, the agent spec), plus what only the config can get
 * wrong (an agent not in `agents`, an id listed twice). Returns every problem; none is fatal alone.
 */
export function configScheduleProblems(loaded: LoadedConfig, cwd: string): ConfigProblem[] {
  const origins = loaded.origins.get("schedules") ?? [];
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, number>();
  loaded.config.schedules.forEach((entry, i) => {
    const place = placeOf(loaded, i);
    const first = seen.get(entry.id);
    if (first !== undefined) {
      problems.push({
        path: `${place}.id`,
        message: `the id "${entry.id}" is already used by schedules[${first}]; every schedule needs its own id`,
        origins,
      });
    } else seen.set(entry.id, i);
    try {
      parseSchedule(configScheduleEntry(loaded, i, cwd).schedule);
    } catch (err) {
      if (!isRunnerError(err) || err.code !== "SCHEDULE_INVALID") throw err;
      const listed = err.data.problems as { field: string; message: string }[] | undefined;
      if (listed) {
        for (const p of listed)
          problems.push({ path: `${place}.${configField(p.field)}`, message: p.message, origins });
      } else {
        const field = configField(err.data.field);
        // The messages start with their field ("cron: ..."): the path says it already.
        const message = err.message.startsWith(`${String(err.data.field)}: `)
          ? err.message.slice(String(err.data.field).length + 2)
          : err.message;
        problems.push({ path: `${place}.${field}`, message, origins });
      }
    }
  });
  return problems;
}

/** Throws CONFIG_INVALID listing every problem of {@link configScheduleProblems}. */
export function assertConfigSchedules(loaded: LoadedConfig, cwd: string): void {
  const problems = configScheduleProblems(loaded, cwd);
  if (problems.length === 0) return;
  throw new RunnerError(
    "CONFIG_INVALID",
    `the configuration has ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${formatProblems(problems)}`,
    { data: { problems } },
  );
}

/** The config's schedules as the scheduler's entries, after {@link assertConfigSchedules}. */
export function checkedConfigScheduleEntries(loaded: LoadedConfig, cwd: string): ConfigScheduleEntry[] {
  assertConfigSchedules(loaded, cwd);
  return loaded.config.schedules.map((_, i) => configScheduleEntry(loaded, i, cwd));
}

/** {@link loadConfig}, then the schedules checked as {@link assertConfigSchedules} does. */
export async function loadCheckedConfig(options: Parameters<typeof loadConfig>[0]): Promise<LoadedConfig> {
  const loaded = await loadConfig(options);
  assertConfigSchedules(loaded, options?.cwd ?? process.cwd());
  return loaded;
}
