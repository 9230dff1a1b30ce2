// A worker stand-in for the supervisor's crash tests, run as its own process:
// `node bin/run-ts.js src/tools/process/process-supervisor.fixture.ts <exit|wait>`. It starts a background
// `sleep 300` under a ProcessSupervisor, prints "pid <n> reaper <n>", then exits at once (exit) or
// waits to be killed (wait).
import { createLogger } from "../../logging/index.js";
import { systemClock } from "../../shared/index.js";
import { ProcessSupervisor } from "./process-supervisor.js";

const mode = process.argv[2] ?? "wait";
const supervisor = new ProcessSupervisor({
  clock: systemClock,
  logger: createLogger({ level: "silent", format: "json" }),
});
const proc = supervisor.startBackground("fixture-run", {
  command: "sleep 300",
  cwd: process.cwd(),
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  outputMaxChars: 1000,
});
process.stdout.write(`pid ${proc.pid} reaper ${supervisor.reaperPid}\n`);
if (mode === "exit") process.exit(0);
setInterval(() => undefined, 60_000);
