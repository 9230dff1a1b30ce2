import { parseArgs } from "node:util";
import { effectiveValues, maskedConfig, renderEffectiveConfig } from "../../../config/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { loadCliConfig } from "../shared/index.js";

/** `echo-runner config show [--json]`: the effective config, the source of each value, secrets masked. */
export const configShowCommand: CliCommand = {
  words: ["config", "show"],
  summary: "print the effective configuration with the source of each value (secrets masked)",
  usage: "echo-runner config show [--config FILE] [--json]",
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: false,
    });
    const loaded = await loadCliConfig(io, values.config);
    const shown = effectiveValues(loaded, io.env);
    if (values.json) {
      io.stdout(
        `${JSON.stringify({ config: maskedConfig(loaded), values: shown, sources: loaded.sources }, null, 2)}\n`,
      );
    } else io.stdout(`${renderEffectiveConfig(shown)}\n`);
    return EXIT.ok;
  },
};
