import { parseArgs } from "node:util";
import { type CliCommand, EXIT } from "../../io.js";
import { openSchedules, scheduleIdArg, summaryLine } from "./schedules-shared.js";

function toggle(enabled: boolean): CliCommand {
  const word = enabled ? "resume" : "pause";
  const usage = `echo-runner schedules ${word} <id> [--config FILE] [--json]`;
  return {
    words: ["schedules", word],
    summary: enabled
      ? "resume a paused schedule (from now on; paused ticks are not caught up)"
      : "pause a schedule (its grant is kept)",
    usage,
    async run(args, io) {
      const { values, positionals } = parseArgs({
        args,
        options: { config: { type: "string" }, json: { type: "boolean", default: false } },
        allowPositionals: true,
      });
      const id = scheduleIdArg(positionals, usage);
      const schedules = await openSchedules(io, values.config);
      try {
        const actor = schedules.actor();
        const view = enabled
          ? await schedules.service.resume(id, actor)
          : await schedules.service.pause(id, actor);
        if (values.json) io.stdout(`${JSON.stringify(view, null, 2)}\n`);
        else io.stdout(`${word === "pause" ? "paused" : "resumed"}: ${summaryLine(view)}\n`);
        return EXIT.ok;
      } finally {
        await schedules.close();
      }
    },
  };
}

/** `echo-runner schedules pause <id>`. */
export const schedulesPauseCommand = toggle(false);
/** `echo-runner schedules resume <id>`. */
export const schedulesResumeCommand = toggle(true);
