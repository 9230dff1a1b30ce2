import { parseArgs } from "node:util";
import { isRunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { loadCliConfig } from "../shared/index.js";
import { loadCheckedConfig } from "./config-schedules.js";

/** `echo-runner config check [--config F]`: exit 0 when valid, 2 listing every problem otherwise. */
export const configCheckCommand: CliCommand = {
  words: ["config", "check"],
  summary: "validate the configuration from every source (exit 2 listing every problem)",
  usage: "echo-runner config check [--config FILE] [--json]",
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: false,
    });
    try {
      const loaded = await loadCliConfig(io, values.config, loadCheckedConfig);
      // One line per file: the demo's workspace override is a second source from the same file.
      const origins = [...new Set(loaded.sources.map((s) => `${s.kind}: ${s.origin}`))];
      if (values.json) io.stdout(`${JSON.stringify({ valid: true, sources: loaded.sources })}\n`);
      else io.stdout(`config is valid\nsources (lowest precedence first):\n  ${origins.join("\n  ")}\n`);
      return EXIT.ok;
    } catch (err) {
      if (!isRunnerError(err) || (err.code !== "CONFIG_INVALID" && err.code !== "CONFIG_FILE_UNREADABLE"))
        throw err;
      if (values.json) {
        io.stdout(
          `${JSON.stringify({ valid: false, code: err.code, message: err.message, problems: err.data.problems ?? [] })}\n`,
        );
      } else io.stderr(`${err.message}\n`);
      return EXIT.usage;
    }
  },
};
