import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type ProcessPart, startProcess } from "../../../workers/all-in-one.js";
import { loadConfig } from "../../config/index.js";
import { createLogger } from "../../logging/index.js";
import { type CliCommand, type CliIo, EXIT } from "../io.js";
import { configScheduleEntries } from "./schedules-shared.js";

async function runParts(parts: readonly ProcessPart[], args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: "string" }, "data-dir": { type: "string" } },
    allowPositionals: false,
  });
  const loaded = await loadConfig({ configPath: values.config, env: io.env, cwd: io.cwd });
  const { config } = loaded;
  const logger = createLogger({
    level: config.logging.level,
    format: config.logging.format,
    isTty: process.stdout.isTTY === true,
    base: { service: `echo-runner:${parts.join("+")}` },
  });
  const dataDir = resolve(io.cwd, values["data-dir"] ?? io.env.ECHO_RUNNER_DATA_DIR ?? "data");
  const configPaths = loaded.sources
    .filter((s) => s.kind === "project" || s.kind === "user")
    .map((s) => s.origin);
  const project = loaded.sources.find((s) => s.kind === "project");
  const running = await startProcess({
    config,
    logger,
    env: io.env,
    redisUrl: io.env.REDIS_URL,
    dataDir,
    baseDir: project ? dirname(project.origin) : io.cwd,
    configPaths,
    parts,
    configSchedules: parts.includes("scheduler") ? configScheduleEntries(loaded, io.cwd) : [],
  });
  logger.info({ parts }, "echo-runner is running; press Ctrl+C to stop");
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
}

const OPTIONS = "[--config FILE] [--data-dir DIR]";

/** `echo-runner start`: scheduler, worker and HTTP server in one process. */
export const startCommand: CliCommand = {
  words: ["start"],
  summary:
    "run scheduler, worker and HTTP server in one process (starts redis-server when REDIS_URL is unset)",
  usage: `echo-runner start ${OPTIONS}`,
  run: (args, io) => runParts(["http", "worker", "scheduler"], args, io),
};

/** `echo-runner worker`: only the agent worker (add more on other machines against one Redis). */
export const workerCommand: CliCommand = {
  words: ["worker"],
  summary: "run only an agent worker",
  usage: `echo-runner worker ${OPTIONS}`,
  run: (args, io) => runParts(["worker"], args, io),
};

/** `echo-runner scheduler`: only the scheduler (one leader fires; others stand by). */
export const schedulerCommand: CliCommand = {
  words: ["scheduler"],
  summary: "run only the scheduler",
  usage: `echo-runner scheduler ${OPTIONS}`,
  run: (args, io) => runParts(["scheduler"], args, io),
};

/** `echo-runner serve`: only the HTTP server (approval pages, API, health). */
export const serveCommand: CliCommand = {
  words: ["serve"],
  summary: "run only the HTTP server",
  usage: `echo-runner serve ${OPTIONS}`,
  run: (args, io) => runParts(["http"], args, io),
};
