import { parseArgs } from "node:util";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { detailText, openSchedules, requireView, scheduleIdArg } from "./schedules-shared.js";

const USAGE = "echo-runner schedules show <id> [--history N] [--config FILE] [--json]";

/** `echo-runner schedules show <id>`: the schedule, its grant and its recent history. */
export const schedulesShowCommand: CliCommand = {
  words: ["schedules", "show"],
  summary: "show one schedule, its grant and its run history",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        history: { type: "string", default: "20" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    const id = scheduleIdArg(positionals, USAGE);
    const limit = Number(values.history);
    if (!Number.isInteger(limit) || limit < 0 || limit > 500) {
      throw new RunnerError(
        "CLI_USAGE",
        `--history must be a whole number from 0 to 500, got "${values.history}"`,
      );
    }
    const schedules = await openSchedules(io, values.config);
    try {
      const view = requireView(await schedules.service.get(id), id);
      const history = limit === 0 ? [] : await schedules.service.history(id, limit);
      if (values.json) io.stdout(`${JSON.stringify({ ...view, history }, null, 2)}\n`);
      else io.stdout(`${detailText(view, history)}\n`);
      return EXIT.ok;
    } finally {
      await schedules.close();
    }
  },
};
