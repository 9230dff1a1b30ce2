import { parseArgs } from "node:util";
import { type CliCommand, EXIT } from "../../io.js";
import { openSchedules, scheduleIdArg } from "./schedules-shared.js";

const USAGE = "echo-runner schedules revoke <id> [--config FILE] [--json]";

/**
 * `echo-runner schedules revoke <id>`: revokes the schedule's cron authorisation; every run that
 * starts afterwards runs without it. Exit 1 when there was no active grant.
 */
export const schedulesRevokeCommand: CliCommand = {
  words: ["schedules", "revoke"],
  summary: "revoke a schedule's cron authorisation (from its next run on)",
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
      const grant = await schedules.service.revoke(id, schedules.actor());
      if (values.json) io.stdout(`${JSON.stringify({ id, revoked: grant !== null, grant }, null, 2)}\n`);
      else if (grant)
        io.stdout(
          `revoked the cron authorisation of ${id}; runs that start from now on are not cron-authorised\n`,
        );
      else io.stdout(`${id} has no active cron authorisation; nothing to revoke\n`);
      return grant ? EXIT.ok : EXIT.failed;
    } finally {
      await schedules.close();
    }
  },
};
