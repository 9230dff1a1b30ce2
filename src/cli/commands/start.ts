import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startAllInOne } from "../../../workers/all-in-one.js";
import { loadConfig } from "../../config/index.js";
import { createLogger } from "../../logging/index.js";
import { type CliCommand, EXIT } from "../io.js";

/**
 * `echo-runner start`: one process runs everything. Resolves only when the process is told to stop
 * (SIGINT or SIGTERM), after a clean shutdown.
 */
export const startCommand: CliCommand = {
  words: ["start"],
  summary: "run everything in one process (starts a local redis-server when REDIS_URL is unset)",
  usage: "echo-runner start [--config FILE] [--data-dir DIR]",
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { config: { type: "string" }, "data-dir": { type: "string" } },
      allowPositionals: false,
    });
    const { config } = await loadConfig({ configPath: values.config, env: io.env, cwd: io.cwd });
    const logger = createLogger({
      level: config.logging.level,
      format: config.logging.format,
      isTty: process.stdout.isTTY === true,
      base: { service: "echo-runner" },
    });
    const dataDir = resolve(io.cwd, values["data-dir"] ?? io.env.ECHO_RUNNER_DATA_DIR ?? "data");
    const running = await startAllInOne({ config, logger, redisUrl: io.env.REDIS_URL, dataDir });
    logger.info("echo-runner is running; press Ctrl+C to stop");
    await new Promise<void>((done) => {
      const onSignal = (signal: NodeJS.Signals) => {
        logger.info({ signal }, "shutting down");
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        done();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
    });
    await running.stop();
    return EXIT.ok;
  },
};
