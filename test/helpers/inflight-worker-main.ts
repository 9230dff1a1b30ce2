// One worker process of the in-flight bench (bench/inflight.bench.ts starts it from dist/ when the build is fresh):
// an agent worker (the production startAgentWorker) whose model is the slow fake (MODEL_URL) and
// whose one tool is the test harness's counting write_file (COUNTER_FILE: one line per execution,
// so calls run twice are counted outside the journal). Env: REDIS_URL, KEY_PREFIX, CONCURRENCY.
// Prints "worker ready <id>"; on SIGTERM prints one line "stats <json>" (event-loop lag, heap) and exits.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createRedisConnection } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { countingWriteTool, testRunDeps } from "./agent-harness.js";

const env = process.env;
// CLUSTER_NODES (host:port,…) runs the worker on a Redis Cluster instead of REDIS_URL.
const redis = createRedisConnection(
  {
    url: env.REDIS_URL || "redis://127.0.0.1:6379",
    clusterNodes: (env.CLUSTER_NODES ?? "").split(",").filter(Boolean),
  },
  { maxRetriesPerRequest: null },
);
const keyPrefix = env.KEY_PREFIX ?? "";
const concurrency = Number(env.CONCURRENCY ?? "1");
const { deps } = await testRunDeps({
  redis,
  keyPrefix,
  tools: [countingWriteTool(env.COUNTER_FILE ?? "", { keepOpen: true })],
  script: "- content: unused\n",
  env: { FAKE_KEY: "sk-bench-000000" },
  configOverrides: {
    models: {
      scripted: { provider: "openai", base_url: env.MODEL_URL, model: "m", api_key_env: "FAKE_KEY" },
    },
  },
});
const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency, deps });
/** Jobs this worker holds: started and not yet finished (a parked run has left, as it holds no slot). */
let running = 0;
let completed = 0;
let failed = 0;
worker.on("active", () => running++);
worker.on("completed", () => {
  running--;
  completed++;
});
worker.on("failed", () => {
  running--;
  failed++;
});
await worker.waitUntilReady();
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
// With --expose-gc (the bench sets it) the heap is measured after a full collection: what runs retain.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapAtReady = process.memoryUsage().heapUsed;
/** One measurement after a forced collection, taken once the slots have been busy for 3 s. */
let retained: { heapBytes: number; running: number } | undefined;
let busySince = 0;
const cpuAtReady = process.cpuUsage();
/** Heap samples while at least 90 % of the slots were busy: [heapUsed, running]. */
const busyHeap: [number, number][] = [];
let peakRunning = 0;
const sampler = setInterval(() => {
  peakRunning = Math.max(peakRunning, running);
  if (running >= concurrency * 0.9) {
    busyHeap.push([process.memoryUsage().heapUsed, running]);
    busySince ||= Date.now();
    if (gc && !retained && Date.now() - busySince > 3_000) {
      gc();
      retained = { heapBytes: process.memoryUsage().heapUsed, running };
    }
  } else busySince = 0;
}, 250);
process.stdout.write(`worker ready ${worker.id}\n`);
process.on("SIGTERM", () => {
  clearInterval(sampler);
  lag.disable();
  const sorted = busyHeap.map(([h]) => h).sort((a, b) => a - b);
  const medianHeap = sorted[Math.floor(sorted.length / 2)] ?? heapAtReady;
  const medianRunning =
    busyHeap.map(([, r]) => r).sort((a, b) => a - b)[Math.floor(busyHeap.length / 2)] ?? 0;
  const stats = {
    lagP50Ms: lag.percentile(50) / 1e6,
    lagP99Ms: lag.percentile(99) / 1e6,
    lagMaxMs: lag.max / 1e6,
    heapAtReadyBytes: heapAtReady,
    heapBusyMedianBytes: medianHeap,
    runningAtBusyMedian: medianRunning,
    peakRunning,
    retainedHeapBytes: retained?.heapBytes ?? 0,
    runningAtRetained: retained?.running ?? 0,
    completed,
    failed,
    busySamples: busyHeap.length,
    cpuUs: (({ user, system }) => user + system)(process.cpuUsage(cpuAtReady)),
  };
  process.stdout.write(`stats ${JSON.stringify(stats)}\n`);
  void worker.close(true).finally(() => process.exit(0));
});
