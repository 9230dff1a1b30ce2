// A real agent worker process for crash tests: `node bin/run-ts.js test/helpers/agent-worker-main.ts`.
// Configured by environment: REDIS_URL, KEY_PREFIX, COUNTER_FILE, SCRIPT_FILE, TOOL_DELAY_MS,
// CLAIM_LEASE_MS, LOCK_MS, STALLED_MS (BullMQ's stall check interval; default half the lock); WORKER_RECORDS_DIR (optional: the worker records itself there and takes back
// at once the runs of recorded workers that are gone, as `echo-runner worker` does under its data dir); CLUSTER_NODES (host:port,…) connects to a Redis Cluster instead of REDIS_URL;
// CONFIG_JSON (optional): config merged over the test config, e.g. models
// pointing at a local provider-format server (its key variables are read from this environment).
// KILL_AT_DELIVERY=before|after with KILL_AT_CALL=N (1-based): the process SIGKILLs itself at its
// Nth outbox delivery of an execution entry, just before the audit append is sent or just after it
// landed (the two windows of the run's outbox, at an exact line).
// Prints "worker ready <BullMQ worker id>" once it takes jobs (the id starts the lock token of every
// job it holds, so a test can tell whether a kill hit running work).
import { readFile } from "node:fs/promises";
import { createRedisConnection } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { countingWriteTool, testRunDeps } from "./agent-harness.js";

const env = process.env;
const clusterNodes = (env.CLUSTER_NODES ?? "").split(",").filter(Boolean);
const redis = createRedisConnection(
  { url: env.REDIS_URL ?? "redis://127.0.0.1:6379", clusterNodes },
  { maxRetriesPerRequest: null },
);
const keyPrefix = env.KEY_PREFIX ?? "";
const { deps } = await testRunDeps({
  redis,
  keyPrefix,
  tools: [countingWriteTool(env.COUNTER_FILE ?? "", { delayMs: Number(env.TOOL_DELAY_MS ?? "0") })],
  script: await readFile(env.SCRIPT_FILE ?? "", "utf8"),
  ...(env.CONFIG_JSON
    ? { configOverrides: JSON.parse(env.CONFIG_JSON) as Record<string, unknown>, env }
    : {}),
});
if (env.KILL_AT_DELIVERY === "before" || env.KILL_AT_DELIVERY === "after") {
  const when = env.KILL_AT_DELIVERY;
  const at = Number(env.KILL_AT_CALL ?? "1");
  const inner = deps.audit;
  let deliveries = 0;
  deps.audit = {
    ...inner,
    async deliver(entry) {
      // This delivery's number (deliveries run concurrently: the counter moves on while it waits).
      // Decisions, stored with claims and delivered the same way, do not count.
      if (entry.decision !== undefined) return inner.deliver(entry);
      const n = ++deliveries;
      if (n === at && when === "before") process.kill(process.pid, "SIGKILL");
      const appended = await inner.deliver(entry);
      if (n === at && when === "after") process.kill(process.pid, "SIGKILL");
      return appended;
    },
  };
}
const lockMs = Number(env.LOCK_MS ?? "1000");
const worker = startAgentWorker({
  connection: redis,
  keyPrefix,
  concurrency: Number(env.CONCURRENCY ?? "1"),
  deps: { ...deps, claimLeaseMs: Number(env.CLAIM_LEASE_MS ?? "1000") },
  lockDurationMs: lockMs,
  stalledIntervalMs: Number(env.STALLED_MS ?? Math.max(200, Math.floor(lockMs / 2))),
  ...(env.WORKER_RECORDS_DIR ? { workerRecordsDir: env.WORKER_RECORDS_DIR } : {}),
});
await worker.waitUntilReady();
process.stdout.write(`worker ready ${worker.id}\n`);
