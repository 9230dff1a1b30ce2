import { parseArgs } from "node:util";
import { type CliCommand, EXIT } from "../../io.js";
import { openSchedules, scheduleIdArg } from "./schedules-shared.js";

const USAGE = "echo-runner schedules run-now <id> [--config FILE] [--json]";

/** `echo-runner schedules run-now <id>`: enqueues one run now, outside the timetable. */
export const schedulesRunNowCommand: CliCommand = {
  words: ["schedules", "run-now"],
  summary: "enqueue one run of a schedule now (unattended; authorisation checked when it starts)",
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
      const { runId } = await schedules.service.runNow(id, schedules.actor());
      io.stdout(values.json ? `${JSON.stringify({ id, runId })}\n` : `enqueued run ${runId}\n`);
      return EXIT.ok;
    } finally {
      await schedules.close();
    }
  },
};
