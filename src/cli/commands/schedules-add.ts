import { parseArgs } from "node:util";
import { RunnerError } from "../../shared/index.js";
import { type CliCommand, EXIT } from "../io.js";
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
      const actor = schedules.actor();
      const views = [];
      for (const input of inputs)
        views.push(await schedules.service.create(input, { approvalSource: null, actor }));
      if (values.json) io.stdout(`${JSON.stringify(views, null, 2)}\n`);
      else io.stdout(`added:\n${views.map((v) => `  ${summaryLine(v)}`).join("\n")}\n`);
      return EXIT.ok;
    } finally {
      await schedules.close();
    }
  },
};
