import { processIo, runMain } from "./cli/index.js";
import type { StartProcess } from "./runtime/index.js";

/**
 * The `echo-runner` binary (bin/echo-runner.js loads it compiled): the CLI, handed the process that
 * runs the long-lived parts (workers/all-in-one.ts) for `start`, `worker`, `scheduler` and `serve`.
 * Only this entry knows both, so cli and workers never import each other; workers/ is loaded only
 * when a command starts the parts (`--help` or `guard command` load no BullMQ, no Fastify).
 */
const startProcess: StartProcess = async (options) =>
  (await import("../workers/all-in-one.js")).startProcess(options);

process.exitCode = await runMain(process.argv.slice(2), { ...processIo(), startProcess });
