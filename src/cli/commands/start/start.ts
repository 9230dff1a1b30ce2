import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../../config/index.js";
import { createLogger } from "../../../logging/index.js";
import type { ProcessPart } from "../../../runtime/index.js";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, type CliIo, EXIT } from "../../io.js";
import { checkedConfigScheduleEntries } from "../config/index.js";
import { DEMO_CONFIG_PATH, dataDirOf, demoWorkspaceSource, usesDemoConfig } from "../shared/index.js";
import { DEMO_ADMIN_TOKEN_ENV, demoAdminToken, demoBanner, prepareDemoWorkspace } from "./demo-config.js";

/** Ctrl+C / SIGTERM, caught from the first moment of a start (see {@link runParts}). */
interface StopSignal {
  /** Resolves with the first SIGINT or SIGTERM. */
  readonly received: Promise<NodeJS.Signals>;
  /** The signal already received, if any. */
  readonly signal: () => NodeJS.Signals | undefined;
  /** Stops catching (a second signal after the first is not caught: it ends the process at once). */
  dispose(): void;
}

function catchStopSignals(): StopSignal {
  let signal: NodeJS.Signals | undefined;
  let resolve!: (signal: NodeJS.Signals) => void;
  const received = new Promise<NodeJS.Signals>((r) => {
    resolve = r;
  });
  const dispose = () => {
    process.off("SIGINT", on);
    process.off("SIGTERM", on);
  };
  const on = (s: NodeJS.Signals) => {
    signal = s;
    dispose();
    resolve(s);
  };
  process.on("SIGINT", on);
  process.on("SIGTERM", on);
  return { received, signal: () => signal, dispose };
}

async function runParts(
  parts: readonly ProcessPart[],
  args: string[],
  io: CliIo,
  options: { demoByDefault: boolean },
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: "string" }, "data-dir": { type: "string" } },
    allowPositionals: false,
  });
  // Caught before anything starts (the local redis-server, the parts): a Ctrl+C during start-up
  // lets the start finish and then stops everything it started, in order, instead of killing the
  // runner halfway with its children still coming up.
  const stop = catchStopSignals();
  try {
    return await runPartsUntilStopped(parts, values, io, options, stop);
  } finally {
    stop.dispose();
  }
}

async function runPartsUntilStopped(
  parts: readonly ProcessPart[],
  values: { config?: string | undefined; "data-dir"?: string | undefined },
  io: CliIo,
  options: { demoByDefault: boolean },
  stop: StopSignal,
): Promise<number> {
  const dataDir = dataDirOf(values["data-dir"], io.env, io.cwd);
  // `start` with no configuration of the operator's own runs the demo (config/demo.yaml).
  const demo = options.demoByDefault && usesDemoConfig(values.config, io.env, io.cwd);
  // The demo's operator signs in to /admin with a token made for this start (unless one is given):
  // also when config/demo.yaml (or a copy of it) is named with --config, so that what `config check`
  // passes also starts.
  const madeToken = parts.includes("http") && !io.env[DEMO_ADMIN_TOKEN_ENV] ? demoAdminToken() : undefined;
  const withToken = madeToken === undefined ? io.env : { ...io.env, [DEMO_ADMIN_TOKEN_ENV]: madeToken };
  const loaded = await loadConfig({
    configPath: demo ? DEMO_CONFIG_PATH : values.config,
    env: withToken,
    cwd: io.cwd,
    ...(demo ? { extraSources: [demoWorkspaceSource(dataDir)] } : {}),
  });
  const { config } = loaded;
  // The made token reaches the running parts only where the config names it.
  const namesDemoToken = config.approvers.some((a) => a.token_env === DEMO_ADMIN_TOKEN_ENV);
  const env = namesDemoToken ? withToken : io.env;
  const logger = createLogger({
    level: config.logging.level,
    format: config.logging.format,
    isTty: process.stdout.isTTY === true,
    base: { service: `echo-runner:${parts.join("+")}` },
  });
  let workspaceInDataDir: string | undefined;
  if (demo) {
    workspaceInDataDir = await prepareDemoWorkspace(dataDir);
    logger.info(
      { config: DEMO_CONFIG_PATH, workspace: workspaceInDataDir },
      "no configuration given (--config, ECHO_RUNNER_CONFIG, config/echo-runner.yaml): running the demo",
    );
    io.stderr(demoBanner(workspaceInDataDir, config.http.public_url, madeToken ?? null));
  } else if (madeToken !== undefined && namesDemoToken) {
    io.stderr(
      `${DEMO_ADMIN_TOKEN_ENV} is not set, so this start made a one-time /admin sign-in token for the demo approver: ${madeToken}\n`,
    );
  }
  const configPaths = loaded.sources
    .filter((s) => s.kind === "project" || s.kind === "user")
    .map((s) => s.origin);
  const project = loaded.sources.find((s) => s.kind === "project");
  const configSchedules = parts.includes("scheduler") ? checkedConfigScheduleEntries(loaded, io.cwd) : [];
  if (!io.startProcess) {
    throw new RunnerError(
      "INTERNAL",
      "this CLI was started without the process parts; run it as `echo-runner` (bin/echo-runner.js, src/main.ts)",
    );
  }
  const running = await io.startProcess({
    config,
    logger,
    env,
    redisUrl: io.env.REDIS_URL,
    dataDir,
    ...(workspaceInDataDir ? { workspaceInDataDir } : {}),
    baseDir: project ? dirname(project.origin) : io.cwd,
    configPaths,
    parts,
    configSchedules,
  });
  if (stop.signal() === undefined) logger.info({ parts }, "echo-runner is running; press Ctrl+C to stop");
  const signal = await stop.received;
  logger.info({ signal }, "shutting down");
  const report = await running.stop();
  // A part stuck on a dead Redis may leave reconnecting sockets behind: they must not keep the
  // process alive after a bounded shutdown (this timer fires only if something still does).
  setTimeout(() => process.exit(), 3000).unref();
  if (!report.clean) {
    io.stderr(
      `echo-runner: stopped, but not everything was flushed:\n  - ${report.notFlushed.join("\n  - ")}\n`,
    );
    return EXIT.failed;
  }
  return EXIT.ok;
}

const OPTIONS = "[--config FILE] [--data-dir DIR]";

/** `echo-runner start`: scheduler, worker and HTTP server in one process. */
export const startCommand: CliCommand = {
  words: ["start"],
  summary:
    "run scheduler, worker and HTTP server in one process (starts redis-server when REDIS_URL is unset; the demo when no config is given)",
  usage: `echo-runner start ${OPTIONS}`,
  run: (args, io) => runParts(["http", "worker", "scheduler"], args, io, { demoByDefault: true }),
};

/** `echo-runner worker`: only the agent worker (add more on other machines against one Redis). */
export const workerCommand: CliCommand = {
  words: ["worker"],
  summary: "run only an agent worker",
  usage: `echo-runner worker ${OPTIONS}`,
  run: (args, io) => runParts(["worker"], args, io, { demoByDefault: false }),
};

/** `echo-runner scheduler`: only the scheduler (one leader fires; others stand by). */
export const schedulerCommand: CliCommand = {
  words: ["scheduler"],
  summary: "run only the scheduler",
  usage: `echo-runner scheduler ${OPTIONS}`,
  run: (args, io) => runParts(["scheduler"], args, io, { demoByDefault: false }),
};

/** `echo-runner serve`: only the HTTP server (approval pages, API, health). */
export const serveCommand: CliCommand = {
  words: ["serve"],
  summary: "run only the HTTP server",
  usage: `echo-runner serve ${OPTIONS}`,
  run: (args, io) => runParts(["http"], args, io, { demoByDefault: false }),
};
