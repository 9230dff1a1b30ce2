import { parseArgs } from "node:util";
import { makeVisible } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { openSchedules, summaryLine } from "./schedules-shared.js";

/**
 * `echo-runner schedules list`: every schedule with its next tick and authorisation. A schedule
 * that cannot be read is named on stderr and the exit code is 1; the others are listed all the same.
 */
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
      const { views, damaged } = await schedules.service.listWithDamaged();
      if (values.json) io.stdout(`${JSON.stringify(views, null, 2)}\n`);
      else if (views.length === 0) io.stdout("no schedules\n");
      else io.stdout(`${views.map(summaryLine).join("\n")}\n`);
      // The readable ones are listed; each damaged one is named, and the exit code says some are.
      for (const d of damaged) io.stderr(`${makeVisible(`damaged ${d.id}: ${d.code}: ${d.message}`)}\n`);
      return damaged.length > 0 ? EXIT.failed : EXIT.ok;
    } finally {
      await schedules.close();
    }
  },
};
