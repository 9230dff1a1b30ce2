/**
 * `npm run bench`: every figure against a baseline measured in the same run, printed and written to
 * bench/results/latest.json. Uses REDIS_URL, or starts its own redis-server (AOF on) for the run.
 */
process.env.ECHO_BENCH_RUNNER = "1";

import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { startRedisServer } from "../test/helpers/redis-server.js";
import { LOCAL_REDIS_MEMORY_SETTINGS } from "../workers/local-redis.js";
import { formatAgentBench, runAgentBench } from "./agent.bench.js";
import { formatApprovalBench, runApprovalBench } from "./approval.bench.js";
import { formatDurabilityBench, runDurabilityBench } from "./durability.bench.js";
import { formatFileToolsBench, runFileToolsBench } from "./file-tools.bench.js";
import { formatGateBench, runGateBench } from "./gate.bench.js";
import { formatGuardBench, runGuardBench } from "./guard.bench.js";
import { formatInflightBench, runInflightBench } from "./inflight.bench.js";
import { formatJournalBench, runJournalBench } from "./journal.bench.js";
import { formatSandboxBench, runSandboxBench } from "./sandbox.bench.js";
import { formatSchedulerBench, runSchedulerBench } from "./scheduler.bench.js";
import { formatStartupBench, runStartupBench } from "./startup.bench.js";

const server = process.env.REDIS_URL ? undefined : await startRedisServer({ appendfsync: "everysec" });
const redisUrl = process.env.REDIS_URL ?? server?.url ?? "";
if (server) {
  // Measure the Redis that `npm start` runs: the same memory settings as the local redis-server.
  const admin = new Redis(redisUrl);
  const settings = [...LOCAL_REDIS_MEMORY_SETTINGS];
  for (let i = 0; i + 1 < settings.length; i += 2) {
    await admin.config("SET", settings[i]!.replace(/^--/, ""), settings[i + 1]!);
  }
  admin.disconnect();
}
// The machine is shared and noisy: every figure is a ratio against a baseline of the same run, and
// the load average says how busy it was.
const results: Record<string, unknown> = {
  at: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  redis: process.env.REDIS_URL
    ? "REDIS_URL"
    : `own redis-server (AOF everysec, ${LOCAL_REDIS_MEMORY_SETTINGS.join(" ")})`,
  loadAverageAtStart: loadavg(),
};
try {
  const startup = await runStartupBench();
  console.log(formatStartupBench(startup));
  results.startup = startup;
  const gate = await runGateBench();
  console.log(formatGateBench(gate));
  results.gate = gate;
  const guard = await runGuardBench();
  console.log(formatGuardBench(guard));
  results.guard = guard;
  const fileTools = await runFileToolsBench();
  console.log(formatFileToolsBench(fileTools));
  results.fileTools = fileTools;
  const sandbox = await runSandboxBench();
  console.log(formatSandboxBench(sandbox));
  results.sandbox = sandbox;
  const journal = await runJournalBench({ redisUrl });
  console.log(formatJournalBench(journal));
  results.journal = journal;
  const agent = await runAgentBench({ redisUrl });
  console.log(formatAgentBench(agent));
  results.agent = agent;
  const durability = await runDurabilityBench();
  console.log(formatDurabilityBench(durability));
  results.durability = durability;
  const scheduler = await runSchedulerBench({ redisUrl });
  console.log(formatSchedulerBench(scheduler));
  results.scheduler = scheduler;
  const approval = await runApprovalBench({ redisUrl });
  console.log(formatApprovalBench(approval));
  results.approval = approval;
  const inflight = await runInflightBench({ redisUrl });
  console.log(formatInflightBench(inflight));
  results.inflight = inflight;
} finally {
  results.loadAverageAtEnd = loadavg();
  const dir = join(import.meta.dirname, "results");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`figures written to ${join(dir, "latest.json")}`);
  await server?.stop();
}
// Every bench closes what it opened, yet after a full run something still holds the event loop
// (Node reports one "Timeout" resource and no handles; not found yet), and `npm run bench` never
// returned. The figures are written and the server is stopped: end here.
process.exit(process.exitCode ?? 0);
