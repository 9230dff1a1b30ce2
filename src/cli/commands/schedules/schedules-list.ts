import { parseArgs } from "node:util";
import { type CliCommand, EXIT } from "../../io.js";
import { openSchedules, summaryLine } from "./schedules-shared.js";

/** `echo-runner schedules list`: every schedule with its next tick and authorisation. */
export const schedulesListCommand: CliCommand = {
  words: ["schedules", "list"],
  summary: "list schedules with their next run and cron authorisation",
  usage: "echo-runner schedules list [--config FILE] [--json]",
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: false,
    });
    const schedules = await openSchedules(io, values.config);
    try {
      const views = await schedules.service.list();
      if (values.json) io.stdout(`${JSON.stringify(views, null, 2)}\n`);
      else if (views.length === 0) io.stdout("no schedules\n");
      else io.stdout(`${views.map(summaryLine).join("\n")}\n`);
      return EXIT.ok;
    } finally {
      await schedules.close();
    }
  },
};
