import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Cluster, Redis } from "ioredis";
import { enqueueAgentRun } from "../src/queue/index.js";
import { agentQueue, countExecutions, testPayload } from "../test/helpers/agent-harness.js";
import { nodeEntryArgs } from "../test/helpers/node-entry.js";
import { startRedisCluster } from "../test/helpers/redis-cluster.js";
import { deleteKeysWithPrefix } from "../test/helpers/test-redis.js";
import { runStandalone } from "./standalone.js";

/**
 * Runs in flight: agent runs that wait on a slow model. A fake chat-completions
 * server in its own process answers every request after a fixed delay (1 s); each run takes 5 model
 * steps (4 calls of a no-op write_file that counts its executions in a file, then the answer). The
 * ideal throughput is concurrency ÷ latency steps per second; measured: one worker process at
 * concurrency 1,000 (throughput, event-loop lag p99, heap per in-flight run), then 1, 2 and 4 worker
 * processes at concurrency 250 each against one Redis (aggregate throughput, efficiency, no run
 * lost, no call run twice — counted outside the journal).
 *
 * Standalone: `node bin/run-ts.js bench/inflight.bench.ts` (REDIS_URL, or a redis-server it starts).
 * From a bench runner: call {@link runInflightBench}; the runner sets ECHO_BENCH_RUNNER=1 first.
 */

const REPO_ROOT = resolve(import.meta.dirname, "..");
const RUN_TS = resolve(REPO_ROOT, "bin/run-ts.js");

/** Options for {@link runInflightBench}. */
export interface InflightBenchOptions {
  redisUrl: string;
  /** The model's fixed latency, ms. Default 1000. */
  latencyMs?: number;
  /** Model steps per run. Default 5. */
  stepsPerRun?: number;
  /** Runs per worker slot (each slot runs this many runs one after another). Default 2. */
  runsPerSlot?: number;
  /** The scenarios: worker processes × concurrency each. Default 1×1000, 1×250, 2×250, 4×250. */
  scenarios?: readonly { processes: number; concurrency: number }[];
  /** Also run this scenario on a three-master Redis Cluster the bench starts. Default 1 × 250; null: none. */
  clusterScenario?: { processes: number; concurrency: number } | null;
}

/** One scenario's figures. */
export interface InflightFigure {
  processes: number;
  concurrencyEach: number;
  runs: number;
  steps: number;
  /** concurrency × processes ÷ latency. */
  idealStepsPerSec: number;
  /** Steps over the whole scenario, first request to last answer. */
  stepsPerSec: number;
  /** Steps per second in the middle of the scenario (first and last latency left out). */
  steadyStepsPerSec: number;
  /** steadyStepsPerSec ÷ ideal. */
  efficiency: number;
  /** Most model requests open at once (≈ runs in flight). */
  peakInFlight: number;
  /** Event-loop lag p99 / max of each worker process, ms. */
  lagP99Ms: number[];
  lagMaxMs: number[];
  /** (median heap while the slots were busy − heap at ready) ÷ runs held, per process, bytes: garbage included. */
  heapPerRunBytes: number[];
  /** The same after a forced full GC once the slots had been busy 3 s: what a run in flight retains. */
  retainedHeapPerRunBytes: number[];
  /** CPU of each worker process over the scenario, µs per step it served. */
  cpuUsPerStep: number;
  /** The fake model server's CPU per step: on a small machine it competes with the worker. */
  modelCpuUsPerStep: number;
  /** Redis's CPU per step (single Redis only; enqueueing included). */
  redisCpuUsPerStep: number;
  /** How the worker processes ran: compiled (dist/, as in production) or sources through tsx. */
  workerFrom: "dist" | "tsx";
  /** Runs the workers reported completed (their "completed" events). */
  runsCompleted: number;
  runsFailed: number;
  /** Runs still waiting or running at the deadline. */
  runsUnfinished: number;
  /** Runs neither completed, failed nor unfinished: gone. */
  runsLost: number;
  toolCalls: number;
  toolCallsExpected: number;
  callsRunTwice: number;
  loadAverage: number[];
  /** On a Redis Cluster: each master's keys, commands and CPU seconds used during the scenario. */
  masters?: { port: number; keys: number; commands: number; cpuSeconds: number }[];
}

export interface InflightBenchResult {
  latencyMs: number;
  stepsPerRun: number;
  targets: { efficiency: number; lagP99Ms: number };
  figures: InflightFigure[];
}

interface Child {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

/** The worker's entry: run from dist/ when the build is fresh, as production runs (else tsx, sources). */
const WORKER_ENTRY = "test/helpers/inflight-worker-main.ts";

function startChild(entry: string, env: Record<string, string>, workerFrom?: "dist" | "tsx"): Child {
  // INFLIGHT_CPU_PROF=<dir>: each worker process writes a V8 CPU profile there when it exits;
  // INFLIGHT_TRACE_GC=1: the workers run with --trace-gc (see INFLIGHT_WORKER_OUT).
  const profDir = process.env.INFLIGHT_CPU_PROF;
  const worker = entry === WORKER_ENTRY;
  const profile =
    profDir && worker
      ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`]
      : worker && process.env.INFLIGHT_TRACE_GC
        ? ["--trace-gc"]
        : [];
  const args =
    workerFrom === "dist" ? [resolve(REPO_ROOT, "dist", entry.replace(/\.ts$/, ".js"))] : [RUN_TS, entry];
  const child = spawn(process.execPath, [...profile, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --expose-gc`.trim(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const collect = (c: Buffer) => {
    if (out.length < 1_000_000) out += c.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return {
    child,
    output: () => out,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = pattern.exec(out);
        if (m) return m;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${entry} exited (${child.exitCode ?? child.signalCode}):\n${out.slice(-3000)}`);
        if (Date.now() > deadline)
          throw new Error(`${entry}: no ${pattern} in ${timeoutMs} ms:\n${out.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

async function stopChild(c: Child): Promise<void> {
  if (c.child.exitCode !== null || c.child.signalCode !== null) return;
  const exited = new Promise<void>((done) => c.child.once("exit", () => done()));
  c.child.kill("SIGTERM");
  const timer = setTimeout(() => c.child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

export async function runInflightBench(options: InflightBenchOptions): Promise<InflightBenchResult> {
  const latencyMs = options.latencyMs ?? 1000;
  const stepsPerRun = options.stepsPerRun ?? 5;
  const runsPerSlot = options.runsPerSlot ?? 2;
  const scenarios = options.scenarios ?? [
    { processes: 1, concurrency: 1000 },
    { processes: 1, concurrency: 250 },
    { processes: 2, concurrency: 250 },
    { processes: 4, concurrency: 250 },
  ];
  const model = startChild("bench/inflight/slow-model-main.ts", {
    DELAY_MS: String(latencyMs),
    STEPS: String(stepsPerRun),
  });
  const admin = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const figures: InflightFigure[] = [];
  try {
    const modelUrl = (await model.waitFor(/model ready (\S+)/, 60_000))[1]!;
    const statsUrl = modelUrl.replace(/\/v1$/, "");
    const onCluster =
      options.clusterScenario === undefined ? { processes: 1, concurrency: 250 } : options.clusterScenario;
    if (onCluster) {
      const cluster = await startRedisCluster(3);
      const client = cluster.client();
      try {
        const before = await cluster.masterStats();
        const figure = await runScenario({
          ...onCluster,
          admin: client,
          clusterNodes: cluster.nodes,
          options,
          modelUrl,
          statsUrl,
          latencyMs,
          stepsPerRun,
          runsPerSlot,
        });
        const after = await cluster.masterStats();
        figure.masters = after.map((m, i) => ({
          port: m.port,
          keys: m.keys,
          commands: m.commands - (before[i]?.commands ?? 0),
          cpuSeconds: m.cpuSeconds - (before[i]?.cpuSeconds ?? 0),
        }));
        figures.push(figure);
      } finally {
        client.disconnect();
        await cluster.stop();
      }
    }
    for (const scenario of scenarios) {
      figures.push(
        await runScenario({
          ...scenario,
          admin,
          options,
          modelUrl,
          statsUrl,
          latencyMs,
          stepsPerRun,
          runsPerSlot,
        }),
      );
    }
  } finally {
    await stopChild(model);
    admin.disconnect();
  }
  return { latencyMs, stepsPerRun, targets: { efficiency: 0.9, lagP99Ms: 50 }, figures };
}

async function runScenario(s: {
  processes: number;
  concurrency: number;
  admin: Redis | Cluster;
  /** Seed nodes when the scenario runs on a Redis Cluster. */
  clusterNodes?: string[];
  options: InflightBenchOptions;
  modelUrl: string;
  statsUrl: string;
  latencyMs: number;
  stepsPerRun: number;
  runsPerSlot: number;
}): Promise<InflightFigure> {
  const prefix = `bench-inflight-${randomBytes(4).toString("hex")}`;
  const dir = await mkdtemp(join(tmpdir(), "echo-inflight-"));
  const workers: Child[] = [];
  const counters: string[] = [];
  const queue = agentQueue(s.admin, prefix);
  let workerFrom: "dist" | "tsx" = "tsx";
  try {
    // One entry for every process of the scenario (dist/ when fresh: see nodeEntryArgs).
    // INFLIGHT_WORKER_FROM=tsx runs the sources even when dist/ is fresh (to compare the two).
    workerFrom =
      process.env.INFLIGHT_WORKER_FROM !== "tsx" && nodeEntryArgs(WORKER_ENTRY).length === 1 ? "dist" : "tsx";
    for (let i = 0; i < s.processes; i++) {
      const counter = join(dir, `counter-${i}.txt`);
      counters.push(counter);
      workers.push(
        startChild(
          WORKER_ENTRY,
          {
            REDIS_URL: s.options.redisUrl,
            CLUSTER_NODES: (s.clusterNodes ?? []).join(","),
            KEY_PREFIX: prefix,
            CONCURRENCY: String(s.concurrency),
            MODEL_URL: s.modelUrl,
            COUNTER_FILE: counter,
          },
          workerFrom,
        ),
      );
    }
    for (const w of workers) await w.waitFor(/worker ready/, 120_000);
    await fetch(`${s.statsUrl}/reset`, { method: "POST" });
    const redisCpuBefore = s.clusterNodes ? Number.NaN : await redisCpuUs(s.admin as Redis);
    const runs = s.processes * s.concurrency * s.runsPerSlot;
    const payloads = Array.from({ length: runs }, () =>
      testPayload({}, { task: "bench", maxSteps: s.stepsPerRun + 5 }),
    );
    await Promise.all(payloads.map((p) => enqueueAgentRun(queue, p)));
    // Generous: a loaded machine runs far below the ideal; what did not finish by then is "unfinished".
    const deadline =
      Date.now() + 60_000 + ((runs * s.stepsPerRun * s.latencyMs) / (s.processes * s.concurrency)) * 10;
    // Finished jobs beyond retention.finished_jobs are removed, so "done" is: nothing left to run.
    const pending = async () => {
      const c = await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "waiting-children");
      return Object.values(c).reduce((a, b) => a + b, 0);
    };
    while ((await pending()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const failedJobs = (await queue.getJobCounts("failed")).failed ?? 0;
    const unfinished = await pending();
    const stats = (await (await fetch(`${s.statsUrl}/stats`)).json()) as {
      arrivals: number[];
      peakInFlight: number;
      cpuUs: number;
    };
    const redisCpu = s.clusterNodes ? Number.NaN : (await redisCpuUs(s.admin as Redis)) - redisCpuBefore;
    const workerStats: Record<string, number>[] = [];
    for (const w of workers) {
      await stopChild(w);
      // INFLIGHT_WORKER_OUT=<file>: the worker's output (with INFLIGHT_TRACE_GC=1, its --trace-gc lines).
      if (process.env.INFLIGHT_WORKER_OUT) await writeFile(process.env.INFLIGHT_WORKER_OUT, w.output());
      const line = /stats (\{.*\})/.exec(w.output())?.[1];
      workerStats.push(line ? (JSON.parse(line) as Record<string, number>) : {});
    }
    const arrivals = stats.arrivals.sort((a, b) => a - b);
    const first = arrivals[0] ?? 0;
    const lastDone = (arrivals.at(-1) ?? 0) + s.latencyMs;
    const steps = arrivals.length;
    const doneTimes = arrivals.map((t) => t + s.latencyMs);
    const from = first + s.latencyMs * 2;
    const to = lastDone - s.latencyMs;
    const inWindow = doneTimes.filter((t) => t > from && t <= to).length;
    const steady = to > from ? inWindow / ((to - from) / 1000) : 0;
    const ideal = (s.processes * s.concurrency * 1000) / s.latencyMs;
    let toolCalls = 0;
    let twice = 0;
    const all = new Map<string, number>();
    for (const c of counters)
      for (const [k, n] of await countExecutions(c)) all.set(k, (all.get(k) ?? 0) + n);
    for (const n of all.values()) {
      toolCalls += n;
      if (n > 1) twice++;
    }
    const cpu = workerStats.reduce((sum, w) => sum + (w.cpuUs ?? 0), 0);
    const completed = workerStats.reduce((sum, w) => sum + (w.completed ?? 0), 0);
    return {
      processes: s.processes,
      concurrencyEach: s.concurrency,
      runs,
      steps,
      idealStepsPerSec: ideal,
      stepsPerSec: steps / ((lastDone - first) / 1000),
      steadyStepsPerSec: steady,
      efficiency: steady / ideal,
      peakInFlight: stats.peakInFlight,
      lagP99Ms: workerStats.map((w) => w.lagP99Ms ?? Number.NaN),
      lagMaxMs: workerStats.map((w) => w.lagMaxMs ?? Number.NaN),
      heapPerRunBytes: workerStats.map((w) =>
        w.runningAtBusyMedian
          ? ((w.heapBusyMedianBytes ?? 0) - (w.heapAtReadyBytes ?? 0)) / w.runningAtBusyMedian
          : Number.NaN,
      ),
      retainedHeapPerRunBytes: workerStats.map((w) =>
        w.runningAtRetained
          ? ((w.retainedHeapBytes ?? 0) - (w.heapAtReadyBytes ?? 0)) / w.runningAtRetained
          : Number.NaN,
      ),
      cpuUsPerStep: steps > 0 ? cpu / steps : Number.NaN,
      modelCpuUsPerStep: steps > 0 ? stats.cpuUs / steps : Number.NaN,
      redisCpuUsPerStep: steps > 0 ? redisCpu / steps : Number.NaN,
      workerFrom,
      runsCompleted: completed,
      runsFailed: failedJobs,
      runsUnfinished: unfinished,
      runsLost: runs - completed - failedJobs - unfinished,
      toolCalls,
      toolCallsExpected: runs * (s.stepsPerRun - 1),
      callsRunTwice: twice,
      loadAverage: loadavg(),
    };
  } finally {
    for (const w of workers) await stopChild(w);
    await queue.close();
    // A cluster is thrown away whole; on the one Redis the scenario's keys are removed.
    if (!s.clusterNodes) {
      await deleteKeysWithPrefix(s.admin as Redis, `{${prefix}}`);
      await deleteKeysWithPrefix(s.admin as Redis, prefix);
    }
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatInflightBench(r: InflightBenchResult): string {
  const lines = [
    `runs in flight: fake model answering after ${r.latencyMs} ms (own process), ${r.stepsPerRun} steps per run, no-op tool`,
  ];
  for (const f of r.figures) {
    if (f.masters) {
      lines.push(
        `  on a three-master Redis Cluster, per master (keys, commands, CPU s): ${f.masters.map((m) => `${m.keys} / ${m.commands} / ${m.cpuSeconds.toFixed(1)}`).join("; ")}`,
      );
    }
    const kb = f.heapPerRunBytes.map((b) => (Number.isFinite(b) ? `${(b / 1024).toFixed(1)} KB` : "n/a"));
    lines.push(
      `  ${f.processes} × ${f.concurrencyEach}${f.masters ? " (Redis Cluster)" : ""}: ${f.steadyStepsPerSec.toFixed(0)} steps/s steady (${f.stepsPerSec.toFixed(0)} overall) of ideal ${f.idealStepsPerSec.toFixed(0)} → ${(f.efficiency * 100).toFixed(1)} % (target ${r.targets.efficiency * 100} %); peak ${f.peakInFlight} in flight; lag p99 ${f.lagP99Ms.map((x) => x.toFixed(0)).join("/")} ms (max ${f.lagMaxMs.map((x) => x.toFixed(0)).join("/")}); heap/run ${kb.join("/")} (retained after GC ${f.retainedHeapPerRunBytes.map((b) => (Number.isFinite(b) ? `${(b / 1024).toFixed(1)} KB` : "n/a")).join("/")}); CPU per step: worker ${f.cpuUsPerStep.toFixed(0)} µs, model server ${f.modelCpuUsPerStep.toFixed(0)} µs, Redis ${Number.isFinite(f.redisCpuUsPerStep) ? `${f.redisCpuUsPerStep.toFixed(0)} µs` : "n/a"}; worker from ${f.workerFrom}; runs ${f.runsCompleted}/${f.runs} completed (failed ${f.runsFailed}, unfinished ${f.runsUnfinished}, lost ${f.runsLost}); tool calls ${f.toolCalls}/${f.toolCallsExpected}, run twice ${f.callsRunTwice}; load ${f.loadAverage.map((x) => x.toFixed(1)).join(" ")}`,
    );
  }
  return lines.join("\n");
}

runStandalone("inflight", async (redisUrl) => {
  const scenarios = process.env.INFLIGHT_SCENARIOS?.split(",").map((s) => {
    const [p, c] = s.split("x").map(Number);
    return { processes: p ?? 1, concurrency: c ?? 1 };
  });
  const cluster = process.env.INFLIGHT_CLUSTER;
  const clusterScenario =
    cluster === "none"
      ? null
      : cluster
        ? { processes: Number(cluster.split("x")[0]), concurrency: Number(cluster.split("x")[1]) }
        : undefined;
  return formatInflightBench(
    await runInflightBench({
      redisUrl,
      ...(scenarios ? { scenarios } : {}),
      ...(clusterScenario !== undefined ? { clusterScenario } : {}),
    }),
  );
});

/** Redis's own CPU so far (INFO cpu), µs. */
async function redisCpuUs(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? Number.NaN);
  return (field("used_cpu_sys") + field("used_cpu_user")) * 1e6;
}
