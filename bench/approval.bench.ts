import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { ApprovalStore } from "../src/approvals/index.js";
import { createHttpServer } from "../src/http/index.js";
import { createLogger } from "../src/logging/index.js";
import { bullPrefix, enqueueAgentRun } from "../src/queue/index.js";
import { agentQueue, testPayload } from "../test/helpers/agent-harness.js";
import { freePort } from "../test/helpers/free-port.js";
import { PARKING_APPROVER, startParkingWorker } from "../test/helpers/parking-worker.js";
import { deleteKeysWithPrefix } from "../test/helpers/test-redis.js";
import { runStandalone } from "./standalone.js";

/**
 * Approvals benchmark. (a) Click-to-resume: a run parked on an exec approval, an
 * approver's POST of the decision form over HTTP (page fetched beforehand, as a person would),
 * until the worker starts executing the approved call — through the production wiring (HTTP server
 * (the worker's promoter reads the decision events); against BullMQ's own promote-to-process latency (a
 * delayed no-op job promoted until its processor starts), interleaved in the same run. Target p99
 * ≤ 50 ms on loopback. (b) Redis memory per parked run (used_memory delta over N parked runs / N,
 * and MEMORY USAGE of one run's own keys) and the worker process's memory before and after.
 *
 * Standalone: `node bin/run-ts.js bench/approval.bench.ts` (REDIS_URL, or a redis-server it starts).
 * From a bench runner: call {@link runApprovalBench}; the runner sets ECHO_BENCH_RUNNER=1 first.
 */

/** Options for {@link runApprovalBench}. */
export interface ApprovalBenchOptions {
  redisUrl: string;
  /** Click-to-resume samples per wiring (and as many baseline samples). Default 200. */
  samples?: number;
  /** Runs parked for the memory figures. Default 10 000. */
  parked?: number;
  /** Worker concurrency. Default 4 (config's default). */
  concurrency?: number;
  /** Park a second batch to see the worker's heap growth (default true; the Redis figures do not need it). */
  secondBatch?: boolean;
}

/** Percentiles of a latency sample, ms. */
export interface LatencyFigure {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What {@link runApprovalBench} measured. */
export interface ApprovalBenchResult {
  /** POST of the decision → approved call starts; job woken by the worker's events promoter. */
  clickToResume: LatencyFigure;
  /** POST sent → response received (part of clickToResume). */
  postResponse: LatencyFigure;
  /** BullMQ alone: promote() of a delayed no-op job → its processor starts. */
  bullPromoteToProcess: LatencyFigure;
  /** clickToResume p50 and p99 over the baseline's. */
  ratioP50: number;
  ratioP99: number;
  memory: ParkedMemoryFigure;
}

/** Memory of N parked runs. */
export interface ParkedMemoryFigure {
  parked: number;
  /** Wall time to enqueue and park them all, s. */
  parkSeconds: number;
  /** Redis INFO used_memory delta / parked, bytes. */
  redisBytesPerRun: number;
  /** BullMQ's events stream (capped near 10 000 entries, shared by the queue) within that delta. */
  bullEventsStreamBytes: number;
  /** MEMORY USAGE of one parked run's own keys, bytes, by key (prefix stripped). */
  oneRunKeys: Record<string, number>;
  /**
   * MEMORY USAGE of every key of the bench's prefixes, summed by key shape (run and request ids
   * replaced by placeholders) and divided by the parked runs: where the used_memory delta goes,
   * shared indexes and streams included.
   */
  perRunByShape: Record<string, number>;
  workerBefore: ProcessMemory;
  workerAfter: ProcessMemory;
  /**
   * After parking as many runs again. The first batch includes warm-up (caches, the parking burst's
   * allocator high-water mark); growth from `workerAfter` to this is what each parked run costs.
   */
  workerAfterSecondBatch: ProcessMemory;
}

/** A worker process's memory, after a full GC. */
export interface ProcessMemory {
  rss: number;
  heapUsed: number;
  gc: boolean;
}

/** Runs the approval benchmark against `redisUrl` and removes its keys afterwards. */
export async function runApprovalBench(options: ApprovalBenchOptions): Promise<ApprovalBenchResult> {
  const latency = await measureLatency(options);
  const memory = await measureMemory(options);
  return {
    ...latency,
    ratioP50: latency.clickToResume.p50Ms / latency.bullPromoteToProcess.p50Ms,
    ratioP99: latency.clickToResume.p99Ms / latency.bullPromoteToProcess.p99Ms,
    memory,
  };
}

async function measureLatency(options: ApprovalBenchOptions) {
  const samples = options.samples ?? 200;
  const warmup = 10;
  const prefix = `bench-appr-${randomBytes(4).toString("hex")}`;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const logger = createLogger({ level: "silent", format: "json" });
  const started = new Map<string, (at: number) => void>();
  const startOf = (id: string) => new Promise<number>((done) => started.set(id, done));
  const eventsPort = await freePort();
  const publicUrl = `http://127.0.0.1:${eventsPort}`;
  const worker = await startParkingWorker({
    redis,
    redisUrl: options.redisUrl,
    keyPrefix: prefix,
    publicUrl,
    concurrency: options.concurrency ?? 4,
    onExecStart: (runId, at) => started.get(runId)?.(at),
  });
  const queue = agentQueue(redis, prefix);
  const baselineQueue = new Queue("baseline", { connection: redis, prefix: bullPrefix(prefix) });
  const baselineWorker = new Worker(
    "baseline",
    async (job) => {
      started.get(`baseline:${job.id}`)?.(performance.now());
    },
    { connection: redis, prefix: bullPrefix(prefix), concurrency: options.concurrency ?? 4 },
  );
  const approvals = { store: worker.store, decisionRateMax: 1_000_000 };
  // Production wiring: the worker's promoter wakes the job from the decision events.
  const eventsApp = createHttpServer({ redis, logger, approvals: { ...approvals, publicUrl } });
  try {
    await eventsApp.listen({ host: "127.0.0.1", port: eventsPort });
    await baselineWorker.waitUntilReady();
    const click: number[] = [];
    const post: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < warmup + samples; i++) {
      const keep = i >= warmup;
      // Interleaved, so both meet the same machine state.
      const viaEvents = await clickOnce(queue, worker.store, `http://127.0.0.1:${eventsPort}`, startOf);
      const job = await baselineQueue.add("noop", {}, { delay: 3_600_000, removeOnComplete: true });
      const processing = startOf(`baseline:${job.id}`);
      const t0 = performance.now();
      await job.promote();
      const t1 = await processing;
      if (!keep) continue;
      click.push(viaEvents.resumeMs);
      post.push(viaEvents.postMs);
      baseline.push(t1 - t0);
    }
    return {
      clickToResume: figure(click),
      postResponse: figure(post),
      bullPromoteToProcess: figure(baseline),
    };
  } finally {
    await eventsApp.close();
    await baselineWorker.close();
    await worker.stop();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await baselineQueue.obliterate({ force: true }).catch(() => undefined);
    await baselineQueue.close();
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  }
}

/** Parks one run, fetches its page, then times the decision POST until the exec call starts. */
async function clickOnce(
  queue: Queue,
  store: ApprovalStore,
  baseUrl: string,
  startOf: (id: string) => Promise<number>,
): Promise<{ runId: string; t0: number; resumeMs: number; postMs: number }> {
  const payload = testPayload();
  await enqueueAgentRun(queue, payload);
  await until(async () => (await queue.getJobState(payload.runId)) === "delayed", 10_000, 1);
  const [id] = await store.runRequestIds(payload.runId);
  // The mail went to the (silent) log; a fresh link for the same approver replaces its token.
  const token = id ? await store.issueToken(id, PARKING_APPROVER) : null;
  if (!id || !token) throw new Error(`approval bench: run ${payload.runId} has no pending approval`);
  const page = await fetch(`${baseUrl}/approvals/${id}?t=${token}`);
  const nonce = /name="nonce" value="([^"]+)"/.exec(await page.text())?.[1];
  if (page.status !== 200 || !nonce) throw new Error(`approval bench: page answered ${page.status}`);
  const resumed = startOf(payload.runId);
  const t0 = performance.now();
  const response = await fetch(`${baseUrl}/approvals/${id}/decision`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ t: token, nonce, decision: "approve" }).toString(),
  });
  await response.text();
  const postMs = performance.now() - t0;
  if (response.status !== 200) throw new Error(`approval bench: decision answered ${response.status}`);
  const resumeMs = (await resumed) - t0;
  await until(async () => (await queue.getJobState(payload.runId)) === "completed", 10_000, 1);
  return { runId: payload.runId, t0, resumeMs, postMs };
}

async function measureMemory(options: ApprovalBenchOptions): Promise<ParkedMemoryFigure> {
  const parked = options.parked ?? 10_000;
  const prefix = `bench-park-${randomBytes(4).toString("hex")}`;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queue = agentQueue(redis, prefix);
  const child = spawnWorker(options.redisUrl, prefix, options.concurrency ?? 4);
  try {
    await child.ready;
    const workerBefore = await child.memory();
    const usedBefore = await usedMemory(redis);
    const t0 = performance.now();
    const payloads = Array.from({ length: parked }, () => testPayload());
    await inParallel(64, parked, (i) => enqueueAgentRun(queue, payloads[i]!));
    await until(async () => (await queue.getJobCounts("delayed")).delayed === parked, 600_000, 250);
    const parkSeconds = (performance.now() - t0) / 1000;
    const usedAfter = await usedMemory(redis);
    const workerAfter = await child.memory();
    const eventsKey = `${bullPrefix(prefix)}:agent:events`;
    const bullEventsStreamBytes = Number(await redis.call("MEMORY", "USAGE", eventsKey, "SAMPLES", "0"));
    const oneRunKeys = await runKeys(redis, prefix, payloads[0]!.runId);
    const perRunByShape = await bytesByShape(redis, prefix, parked);
    let workerAfterSecondBatch = workerAfter;
    if (options.secondBatch !== false) {
      const second = Array.from({ length: parked }, () => testPayload());
      await inParallel(64, parked, (i) => enqueueAgentRun(queue, second[i]!));
      await until(async () => (await queue.getJobCounts("delayed")).delayed === 2 * parked, 600_000, 250);
      workerAfterSecondBatch = await child.memory();
    }
    return {
      parked,
      parkSeconds,
      redisBytesPerRun: (usedAfter - usedBefore) / parked,
      bullEventsStreamBytes,
      oneRunKeys,
      perRunByShape,
      workerBefore,
      workerAfter,
      workerAfterSecondBatch,
    };
  } finally {
    await child.stop();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await deleteKeysWithPrefix(redis, prefix);
    await deleteKeysWithPrefix(redis, `{${prefix}}`);
    redis.disconnect();
  }
}

/** MEMORY USAGE of every key that belongs to one run alone (indexes shared by runs excluded). */
async function runKeys(redis: Redis, prefix: string, runId: string): Promise<Record<string, number>> {
  const keys = new Set<string>();
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `*${runId}*`, "COUNT", 10_000);
    cursor = next;
    for (const key of found) keys.add(key);
  } while (cursor !== "0");
  // Only this run's keys: run ids of the bench share prefixes ("run-…-1" and "run-…-10").
  const own = new RegExp(`${runId.replace(/[^\w]/g, "\\$&")}(?![\\w-])`);
  for (const key of keys) if (!own.test(key)) keys.delete(key);
  const base = `${prefix}:{approvals}:`;
  const runIndex = `${base}run:${runId}`;
  const type = await redis.type(runIndex);
  for (const id of type === "set" ? await redis.smembers(runIndex) : await redis.hkeys(runIndex)) {
    keys.add(`${base}req:${id}`);
    keys.add(`${base}fetch:${id}`);
  }
  const sizes: Record<string, number> = {};
  for (const key of [...keys].sort()) {
    const bytes = Number(await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
    if (bytes > 0) sizes[key.replace(runId, "<run>").replace(prefix, "<prefix>")] = bytes;
  }
  return sizes;
}

async function bytesByShape(redis: Redis, prefix: string, runs: number): Promise<Record<string, number>> {
  const totals = new Map<string, number>();
  for (const match of [`${prefix}:*`, `{${prefix}}:*`]) {
    let cursor = "0";
    do {
      const [next, found] = await redis.scan(cursor, "MATCH", match, "COUNT", 5_000);
      cursor = next;
      const pipeline = redis.pipeline();
      for (const key of found) pipeline.call("MEMORY", "USAGE", key, "SAMPLES", "0");
      const sizes = (await pipeline.exec()) ?? [];
      found.forEach((key, i) => {
        const shape = key
          .replace(prefix, "<prefix>")
          .replace(/run-\d+-\d+-\d+/, "<run>")
          .replace(/[0-9a-f]{32}/, "<id>")
          .replace(/(seen:decisions:[di]:)\d+:[\w-]+$/, "$1<day>:<shard>");
        totals.set(shape, (totals.get(shape) ?? 0) + Number(sizes[i]?.[1] ?? 0));
      });
    } while (cursor !== "0");
  }
  const perRun: Record<string, number> = {};
  for (const [shape, bytes] of [...totals].sort((a, b) => b[1] - a[1])) {
    if (bytes / runs >= 1) perRun[shape] = Math.round(bytes / runs);
  }
  return perRun;
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

function spawnWorker(redisUrl: string, keyPrefix: string, concurrency: number) {
  const root = resolve(import.meta.dirname, "..");
  const child: ChildProcess = spawn(
    process.execPath,
    ["--expose-gc", resolve(root, "bin/run-ts.js"), "test/helpers/parking-worker-main.ts"],
    {
      cwd: root,
      env: { ...process.env, REDIS_URL: redisUrl, KEY_PREFIX: keyPrefix, CONCURRENCY: String(concurrency) },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error("approval bench: the worker process exited");
    return line.value;
  };
  return {
    ready: next().then((line) => {
      if (line !== "worker ready") throw new Error(`approval bench: worker said ${line}`);
    }),
    async memory(): Promise<ProcessMemory> {
      child.stdin!.write("memory\n");
      const { rss, heapUsed, gc } = JSON.parse(await next()) as ProcessMemory;
      return { rss, heapUsed, gc };
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A human-readable report of {@link runApprovalBench}'s result. */
export function formatApprovalBench(result: ApprovalBenchResult): string {
  const ms = (f: LatencyFigure) =>
    `p50 ${f.p50Ms.toFixed(2)} ms, p99 ${f.p99Ms.toFixed(2)} ms, max ${f.maxMs.toFixed(2)} ms`;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const m = result.memory;
  const own = Object.values(m.oneRunKeys).reduce((a, b) => a + b, 0);
  return [
    `approval click-to-resume (POST → approved call starts, ${result.clickToResume.samples} samples): ${ms(result.clickToResume)} (target p99 <= 50 ms)`,
    `  POST response alone: ${ms(result.postResponse)}`,
    `BullMQ promote → processor starts: ${ms(result.bullPromoteToProcess)}; ratio p50 ${result.ratioP50.toFixed(1)}x, p99 ${result.ratioP99.toFixed(1)}x`,
    `${m.parked} parked runs (parked in ${m.parkSeconds.toFixed(0)} s): Redis ${(m.redisBytesPerRun / 1024).toFixed(2)} KB per run ` +
      `(used_memory delta / N; BullMQ events stream ${mb(m.bullEventsStreamBytes)} of it) (target <= 4 KB); ` +
      `one run's own keys ${(own / 1024).toFixed(2)} KB: ${Object.entries(m.oneRunKeys)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    `worker process after GC: rss ${mb(m.workerBefore.rss)} → ${mb(m.workerAfter.rss)}, heap used ${mb(m.workerBefore.heapUsed)} → ${mb(m.workerAfter.heapUsed)}`,
    `  after ${m.parked} more parked: rss ${mb(m.workerAfterSecondBatch.rss)}, heap used ${mb(m.workerAfterSecondBatch.heapUsed)} ` +
      `(heap growth per parked run over the second batch: ${((m.workerAfterSecondBatch.heapUsed - m.workerAfter.heapUsed) / m.parked).toFixed(0)} bytes; target: no growth)`,
  ].join("\n");
}

function figure(values: readonly number[]): LatencyFigure {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return { samples: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted.at(-1) ?? Number.NaN };
}

async function until(done: () => Promise<boolean>, timeoutMs: number, intervalMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > deadline)
      throw new Error(`approval bench: gave up waiting after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

async function inParallel(
  concurrency: number,
  total: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < total) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
}

runStandalone("approval", async (redisUrl) => {
  const parked = process.env.BENCH_PARKED ? Number(process.env.BENCH_PARKED) : undefined;
  if (process.env.BENCH_ONLY === "memory") return formatMemoryOnly(redisUrl, parked ?? 2_000);
  return formatApprovalBench(await runApprovalBench({ redisUrl, ...(parked ? { parked } : {}) }));
});

/**
 * `BENCH_ONLY=memory`: only the parked-run memory, on the server's stock hash listpack limit (64
 * bytes) and on the raised one (1024) that `npm start` sets, one after the other in the same run.
 */
async function formatMemoryOnly(redisUrl: string, parked: number): Promise<string> {
  const admin = new Redis(redisUrl);
  const lines: string[] = [];
  try {
    const [, original] = (await admin.config("GET", "hash-max-listpack-value")) as [string, string];
    for (const limit of ["64", "1024"]) {
      await admin.config("SET", "hash-max-listpack-value", limit);
      const m = await measureMemory({ redisUrl, parked, secondBatch: false });
      const own = Object.values(m.oneRunKeys).reduce((a, b) => a + b, 0);
      lines.push(
        `hash-max-listpack-value ${limit}, ${parked} parked: ${(m.redisBytesPerRun / 1024).toFixed(2)} KB per run ` +
          `(${m.redisBytesPerRun.toFixed(0)} B, used_memory delta / N); one run's own keys ${own} B: ` +
          Object.entries(m.oneRunKeys)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ") +
          `\n  all keys by shape, bytes per parked run (sum ${Object.values(m.perRunByShape).reduce((a, b) => a + b, 0)}): ` +
          Object.entries(m.perRunByShape)
            .map(([k, v]) => `${k} ${v}`)
            .join(", "),
      );
    }
    await admin.config("SET", "hash-max-listpack-value", original);
  } finally {
    admin.disconnect();
  }
  return lines.join("\n");
}
