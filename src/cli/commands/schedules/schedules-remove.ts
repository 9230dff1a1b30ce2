import { parseArgs } from "node:util";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { openSchedules, scheduleIdArg } from "./schedules-shared.js";

const USAGE = "echo-runner schedules remove <id> [--config FILE] [--json]";

/** `echo-runner schedules remove <id>`: deletes a cronjob or cli schedule (config ones: edit the file). */
export const schedulesRemoveCommand: CliCommand = {
  words: ["schedules", "remove"],
  summary: "delete a schedule with its grant and history (config schedules: remove them from the file)",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    const id = scheduleIdArg(positionals, USAGE);
    const schedules = await openSchedules(io, values.config);
    try {
      if (!(await schedules.service.delete(id))) {
        throw new RunnerError("SCHEDULE_INVALID", `id: no schedule "${id}"`, {
          data: { field: "id", value: id },
        });
      }
      io.stdout(values.json ? `${JSON.stringify({ removed: id })}\n` : `removed ${id}\n`);
      return EXIT.ok;
    } finally {
      await schedules.close();
    }
  },
};
