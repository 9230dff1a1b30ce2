import { parseArgs } from "node:util";
import {
  parseSchedule,
  type ScheduleInput,
  type ScheduleService,
  type ScheduleView,
} from "../../../scheduler/index.js";
import { isRunnerError, RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { readScheduleFile } from "./schedules-file.js";
import { openSchedules, summaryLine } from "./schedules-shared.js";

/**
 * `echo-runner schedules add --file F`: adds the schedule(s) of a YAML file (source cli). They run
 * without cron authorisation: that comes only from the config file or a human-approved cronjob call.
 */
export const schedulesAddCommand: CliCommand = {
  words: ["schedules", "add"],
  summary: "add schedules from a YAML file (not cron-authorised)",
  usage: "echo-runner schedules add --file FILE [--config FILE] [--json]",
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        file: { type: "string" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: false,
    });
    if (!values.file)
      throw new RunnerError("CLI_USAGE", "--file is required; usage: echo-runner schedules add --file FILE");
    const schedules = await openSchedules(io, values.config);
    try {
      const inputs = await readScheduleFile(values.file, io.cwd, schedules.config, schedules.actor);
      const views = await addAll(schedules.service, inputs, values.file, schedules.actor());
      if (values.json) io.stdout(`${JSON.stringify(views, null, 2)}\n`);
      else io.stdout(`added:\n${views.map((v) => `  ${summaryLine(v)}`).join("\n")}\n`);
      return EXIT.ok;
    } finally {
      await schedules.close();
    }
  },
};

/**
 * Adds every schedule of a file or none: all are validated (the same parseSchedule the service
 * runs) and their ids checked against each other and the store before the first is added, and if
 * an add still fails (another process took an id meanwhile) the ones added are removed again.
 */
async function addAll(
  service: ScheduleService,
  inputs: readonly ScheduleInput[],
  file: string,
  actor: string,
): Promise<ScheduleView[]> {
  const problems: string[] = [];
  const ids = new Map<string, number>();
  for (const [i, input] of inputs.entries()) {
    const where = inputs.length > 1 ? `${file}[${i}] (id "${input.id}")` : `${file} (id "${input.id}")`;
    try {
      parseSchedule(input);
    } catch (err) {
      if (!isRunnerError(err, "SCHEDULE_INVALID")) throw err;
      problems.push(`${where}: ${err.message}`);
    }
    const first = ids.get(input.id);
    if (first !== undefined)
      problems.push(`${where}: id: the file lists "${input.id}" twice (also [${first}])`);
    else ids.set(input.id, i);
    if (await service.get(input.id)) problems.push(`${where}: id: a schedule "${input.id}" exists already`);
  }
  if (problems.length > 0) {
    throw new RunnerError(
      "SCHEDULE_INVALID",
      `nothing added; ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n  - ${problems.join("\n  - ")}`,
      { data: { field: "file", problems } },
    );
  }
  const views: ScheduleView[] = [];
  try {
    for (const input of inputs) views.push(await service.create(input, { approvalSource: null, actor }));
  } catch (err) {
    for (const view of views) await service.delete(view.schedule.id);
    throw err;
  }
  return views;
}
