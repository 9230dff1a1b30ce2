import { parseArgs } from "node:util";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { formatInstant, openSchedules, requireView, scheduleIdArg } from "./schedules-shared.js";

const USAGE = "echo-runner schedules next <id> [-n 5] [--config FILE] [--json]";

/** `echo-runner schedules next <id>`: a preview of the next firings (DST rules applied). */
export const schedulesNextCommand: CliCommand = {
  words: ["schedules", "next"],
  summary: "preview the next firings of a schedule",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        n: { type: "string", short: "n", default: "5" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    const id = scheduleIdArg(positionals, USAGE);
    const count = Number(values.n);
    if (!Number.isInteger(count) || count < 1 || count > 1000) {
      throw new RunnerError("CLI_USAGE", `-n must be a whole number from 1 to 1000, got "${values.n}"`);
    }
    const schedules = await openSchedules(io, values.config);
    try {
      const view = requireView(await schedules.service.get(id), id);
      const next = await schedules.service.nextFires(id, count);
      if (values.json) {
        io.stdout(
          `${JSON.stringify({ id, timezone: view.schedule.timezone, next: next.map((t) => new Date(t).toISOString()) }, null, 2)}\n`,
        );
      } else {
        const paused = view.schedule.enabled ? "" : " (paused: these are the times it would fire)";
        io.stdout(`next ${count} firing(s) of ${id}${paused}:\n`);
        io.stdout(`${next.map((t) => `  ${formatInstant(t, view.schedule.timezone)}`).join("\n")}\n`);
      }
      return EXIT.ok;
    } finally {
      await schedules.close();
    }
  },
};
