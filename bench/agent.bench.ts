import { randomBytes } from "node:crypto";
import { type Job, Queue, Worker } from "bullmq";
import { type Cluster, Redis } from "ioredis";
import {
  type AgentJobPayload,
  bullPrefix,
  createRedisConnection,
  enqueueAgentRun,
} from "../src/queue/index.js";
import { startAgentWorker } from "../src/runtime/parts/agent-worker.js";
import { agentQueue, testPayload, testRunDeps } from "../test/helpers/agent-harness.js";
import { startRedisCluster } from "../test/helpers/redis-cluster.js";
import { deleteKeysWithPrefix } from "../test/helpers/test-redis.js";
import { noopReadTool, readFilesScript } from "./agent-workload.js";
import { runStandalone } from "./standalone.js";

/**
 * Agent-run throughput benchmark: tool calls per second of scripted agents whose every
 * call is a no-op read_file, through the whole durable path (BullMQ job, journalled model step,
 * policy, gate, journal claim + complete, two audit appends), at worker concurrency 1, 10 and 50;
 * against raw BullMQ jobs whose processor returns at once, at the same concurrency, on the same
 * Redis, in the same run. Reported as ratios (target >= 0.5), plus a profile of one run: Redis
 * commands per tool call by kind and CPU time per call.
 *
 * Standalone: `node bin/run-ts.js bench/agent.bench.ts` (REDIS_URL, or a redis-server it starts).
 * From a bench runner: call {@link runAgentBench}; the runner sets ECHO_BENCH_RUNNER=1 first.
 */

/** Options for {@link runAgentBench}. */
export interface AgentBenchOptions {
  redisUrl: string;
  /** Tool calls per scripted run, one per model turn. Default 20. */
  callsPerRun?: number;
  /** Worker concurrencies measured. Default [1, 10, 50]. */
  concurrencies?: readonly number[];
  /** Measured rounds per concurrency (median reported). Default 3. */
  rounds?: number;
  /** Concurrency of the Redis Cluster figure; null skips it. Default 50. */
  clusterConcurrency?: number | null;
}

/** One concurrency level: agent tool calls/s against raw no-op jobs/s. */
export interface AgentThroughputFigure {
  concurrency: number;
  /** Runs per round (each `callsPerRun` tool calls). */
  runs: number;
  toolCallsPerSec: number;
  /** Raw BullMQ no-op jobs per second at the same concurrency (as many jobs as tool calls). */
  baselineJobsPerSec: number;
  /** toolCallsPerSec / baselineJobsPerSec. */
  ratio: number;
  /** Process CPU time per tool call, µs (worker, journal, audit, gate: all in this process). */
  cpuUsPerCall: number;
  /** Process CPU time per raw job, µs. */
  cpuUsPerJob: number;
  /** Event-loop utilisation while the agent runs ran (1 = the main thread never waited). */
  agentLoopUtilization: number;
  /** Event-loop utilisation while the raw jobs ran. */
  rawLoopUtilization: number;
}

/** Where one tool call's Redis traffic goes (one run at concurrency 1, counted on the client). */
export interface AgentCallProfile {
  /** Commands sent per tool call, by label (journal / audit scripts, other commands, BullMQ). */
  commandsPerCall: Record<string, number>;
  /** Of those, sent by the run's own code (journal, audit, spill). */
  runCommandsPerCall: number;
  /**
   * The round trips of those commands in sequence: commands sent together (one turn, a pipeline,
   * a Promise.all) count once, as the run waits for them once (see CommandCounter.waits).
   */
  runRoundTripsPerCall: number;
  /** Commands BullMQ sent per raw no-op job (same counting). */
  bullmqCommandsPerJob: number;
  /** Median PING round trip on this Redis, µs, to price a round trip. */
  pingUs: number;
}

/** What {@link runAgentBench} measured. */
export interface AgentBenchResult {
  callsPerRun: number;
  targetRatio: number;
  throughput: AgentThroughputFigure[];
  profile: AgentCallProfile;
  /** The same comparison on a three-master Redis Cluster; null when skipped. */
  cluster: AgentClusterFigure | null;
}

/** One concurrency on a Redis Cluster, with what the agent rounds cost each master. */
export interface AgentClusterFigure extends AgentThroughputFigure {
  /** Per master over the agent rounds: keys at the end of the last one, commands and CPU seconds summed. */
  masters: { port: number; keys: number; commands: number; cpuSeconds: number }[];
}

const TARGET_RATIO = 0.5;

/** Runs the agent benchmark against `redisUrl` and removes its keys afterwards. */
export async function runAgentBench(options: AgentBenchOptions): Promise<AgentBenchResult> {
  const callsPerRun = options.callsPerRun ?? 20;
  const concurrencies = options.concurrencies ?? [1, 10, 50];
  const rounds = options.rounds ?? 3;
  const prefix = `bench:agent:${randomBytes(4).toString("hex")}`;
  const admin = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  // The agent side connects as the runner does (createRedisConnection: writes coalesced per turn);
  // the raw BullMQ side keeps a plain ioredis client, as a BullMQ user would.
  const runnerConnection = () =>
    createRedisConnection(
      { url: options.redisUrl, clusterNodes: [] },
      { maxRetriesPerRequest: null },
    ) as Redis;
  const depsRedis = runnerConnection();
  try {
    const { deps } = await testRunDeps({
      redis: depsRedis,
      keyPrefix: prefix,
      tools: [noopReadTool()],
      script: readFilesScript(callsPerRun),
    });
    const agentSide = async (concurrency: number, runs: number, counter?: CommandCounter) => {
      const queue = agentQueue(admin, prefix);
      const payloads = Array.from({ length: runs }, () =>
        testPayload({}, { maxSteps: callsPerRun + 5, task: "read the files" }),
      );
      return measure({
        queue,
        count: runs,
        enqueue: () => Promise.all(payloads.map((p: AgentJobPayload) => enqueueAgentRun(queue, p))),
        start: (connection) => startAgentWorker({ connection, keyPrefix: prefix, concurrency, deps }),
        connect: runnerConnection,
        check: (job) => {
          const value = job.returnvalue as { status?: string; toolCalls?: number } | undefined;
          if (value?.status !== "completed" || value.toolCalls !== callsPerRun) {
            throw new Error(`run ${job.id} ended ${JSON.stringify(value)}`);
          }
        },
        counter,
      });
    };
    const rawSide = (concurrency: number, jobs: number, counter?: CommandCounter) =>
      measureRawJobs({
        admin,
        prefix,
        concurrency,
        jobs,
        connect: () => new Redis(options.redisUrl, { maxRetriesPerRequest: null }),
        counter,
      });

    // Warm-up: script loading, connections, JIT, on both sides.
    await agentSide(10, 10);
    await rawSide(10, 200);

    const throughput: AgentThroughputFigure[] = [];
    for (const concurrency of concurrencies) {
      const runs = Math.max(10, concurrency * 4);
      const calls = runs * callsPerRun;
      const agent: Measured[] = [];
      const raw: Measured[] = [];
      // Alternating rounds, median of each, so drift on a busy machine hits both sides alike.
      for (let round = 0; round < rounds; round++) {
        agent.push(await agentSide(concurrency, runs));
        raw.push(await rawSide(concurrency, calls));
      }
      const agentMs = median(agent.map((m) => m.ms));
      const rawMs = median(raw.map((m) => m.ms));
      const toolCallsPerSec = (calls / agentMs) * 1000;
      const baselineJobsPerSec = (calls / rawMs) * 1000;
      throughput.push({
        concurrency,
        runs,
        toolCallsPerSec,
        baselineJobsPerSec,
        ratio: toolCallsPerSec / baselineJobsPerSec,
        cpuUsPerCall: median(agent.map((m) => m.cpuUs)) / calls,
        cpuUsPerJob: median(raw.map((m) => m.cpuUs)) / calls,
        agentLoopUtilization: median(agent.map((m) => m.elu)),
        rawLoopUtilization: median(raw.map((m) => m.elu)),
      });
    }

    // Profile: count what one run at concurrency 1 sends, per tool call, and what raw jobs send.
    const runCounter = new CommandCounter();
    runCounter.wrap(depsRedis, "run");
    await agentSide(1, 1, runCounter);
    runCounter.unwrap(depsRedis);
    const rawCounter = new CommandCounter();
    await rawSide(1, 100, rawCounter);
    const commandsPerCall: Record<string, number> = {};
    for (const [label, n] of runCounter.sorted()) commandsPerCall[label] = n / callsPerRun;
    const runCommands = runCounter.sorted().filter(([label]) => label.startsWith("run "));
    const clusterConcurrency = options.clusterConcurrency === undefined ? 50 : options.clusterConcurrency;
    return {
      callsPerRun,
      targetRatio: TARGET_RATIO,
      throughput,
      cluster:
        clusterConcurrency === null ? null : await clusterFigure(callsPerRun, clusterConcurrency, rounds),
      profile: {
        commandsPerCall,
        runCommandsPerCall: runCommands.reduce((sum, [, n]) => sum + n, 0) / callsPerRun,
        runRoundTripsPerCall: runCounter.waits("run") / callsPerRun,
        bullmqCommandsPerJob: rawCounter.total() / 100,
        pingUs: await pingUs(admin),
      },
    };
  } finally {
    await deleteKeysWithPrefix(admin, prefix);
    await deleteKeysWithPrefix(admin, `{${prefix}}`);
    depsRedis.disconnect();
    admin.disconnect();
  }
}

/**
 * The agent side and the raw BullMQ side at one concurrency on a three-master Redis Cluster started
 * for the purpose (redis.cluster_nodes path: every runner connection is a Cluster client), alternating
 * rounds as on the one Redis, with each master's share of the agent rounds' commands and CPU.
 */
async function clusterFigure(
  callsPerRun: number,
  concurrency: number,
  rounds: number,
): Promise<AgentClusterFigure> {
  const cluster = await startRedisCluster(3);
  const prefix = `bench:agentc:${randomBytes(4).toString("hex")}`;
  const runnerConnection = () =>
    createRedisConnection(
      { url: "redis://127.0.0.1:6379", clusterNodes: cluster.nodes },
      { maxRetriesPerRequest: null },
    ) as unknown as Redis;
  const admin = cluster.client();
  const depsRedis = runnerConnection();
  try {
    const { deps } = await testRunDeps({
      redis: depsRedis,
      keyPrefix: prefix,
      tools: [noopReadTool()],
      script: readFilesScript(callsPerRun),
    });
    const agentSide = (runs: number) => {
      const queue = agentQueue(admin, prefix);
      const payloads = Array.from({ length: runs }, () =>
        testPayload({}, { maxSteps: callsPerRun + 5, task: "read the files" }),
      );
      return measure({
        queue,
        count: runs,
        enqueue: () => Promise.all(payloads.map((p: AgentJobPayload) => enqueueAgentRun(queue, p))),
        start: (connection) => startAgentWorker({ connection, keyPrefix: prefix, concurrency, deps }),
        connect: runnerConnection,
        check: () => undefined,
        counter: undefined,
      });
    };
    const rawSide = (jobs: number) =>
      measureRawJobs({
        admin,
        prefix,
        concurrency,
        jobs,
        connect: () => cluster.client() as unknown as Redis,
        counter: undefined,
      });
    await agentSide(10);
    await rawSide(200);
    const runs = Math.max(10, concurrency * 4);
    const calls = runs * callsPerRun;
    const agent: Measured[] = [];
    const raw: Measured[] = [];
    const masters = (await cluster.masterStats()).map((m) => ({ ...m, commands: 0, cpuSeconds: 0 }));
    for (let round = 0; round < rounds; round++) {
      const before = await cluster.masterStats();
      agent.push(await agentSide(runs));
      const after = await cluster.masterStats();
      for (const [i, m] of after.entries()) {
        const was = before[i];
        const sum = masters[i];
        if (!was || !sum) continue;
        sum.commands += m.commands - was.commands;
        sum.cpuSeconds += m.cpuSeconds - was.cpuSeconds;
        sum.keys = m.keys;
      }
      raw.push(await rawSide(calls));
    }
    const agentMs = median(agent.map((m) => m.ms));
    const rawMs = median(raw.map((m) => m.ms));
    return {
      concurrency,
      runs,
      toolCallsPerSec: (calls / agentMs) * 1000,
      baselineJobsPerSec: (calls / rawMs) * 1000,
      ratio: rawMs / agentMs,
      cpuUsPerCall: median(agent.map((m) => m.cpuUs)) / calls,
      cpuUsPerJob: median(raw.map((m) => m.cpuUs)) / calls,
      agentLoopUtilization: median(agent.map((m) => m.elu)),
      rawLoopUtilization: median(raw.map((m) => m.elu)),
      masters,
    };
  } finally {
    depsRedis.disconnect();
    admin.disconnect();
    await cluster.stop();
  }
}

/** The baseline: `jobs` raw BullMQ jobs whose processor returns at once, at `concurrency`. */
function measureRawJobs(o: {
  admin: Redis | Cluster;
  prefix: string;
  concurrency: number;
  jobs: number;
  connect: () => Redis;
  counter: CommandCounter | undefined;
}): Promise<Measured> {
  const queue = new Queue("noop", { connection: o.admin, prefix: bullPrefix(o.prefix) });
  return measure({
    queue,
    count: o.jobs,
    enqueue: () =>
      queue.addBulk(
        Array.from({ length: o.jobs }, (_, i) => ({
          name: "noop",
          data: { i },
          opts: { removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } },
        })),
      ),
    start: (connection) =>
      new Worker("noop", async () => undefined, {
        connection,
        prefix: bullPrefix(o.prefix),
        concurrency: o.concurrency,
        maxStalledCount: 1000,
      }),
    connect: o.connect,
    check: () => undefined,
    counter: o.counter,
  });
}

interface Measured {
  ms: number;
  cpuUs: number;
  elu: number;
}

interface MeasureOptions {
  queue: Queue;
  count: number;
  enqueue: () => Promise<unknown>;
  start: (connection: Redis) => Worker;
  connect: () => Redis;
  check: (job: Job) => void;
  counter: CommandCounter | undefined;
}

/**
 * Enqueues into a paused queue, starts the worker, then times from resume to the last completion,
 * so both sides are measured the same way and enqueueing is not part of either figure.
 */
async function measure(options: MeasureOptions): Promise<Measured> {
  const { queue, count } = options;
  await queue.pause();
  await options.enqueue();
  const connection = options.connect();
  options.counter?.wrap(connection, "bullmq");
  const worker = options.start(connection);
  try {
    let done = 0;
    const finished = new Promise<void>((resolve, reject) => {
      worker.on("completed", (job) => {
        try {
          options.check(job);
        } catch (err) {
          reject(err);
        }
        if (++done === count) resolve();
      });
      worker.on("failed", (job, err) => reject(new Error(`job ${job?.id} failed: ${err.message}`)));
    });
    await worker.waitUntilReady();
    const cpu = process.cpuUsage();
    const elu = performance.eventLoopUtilization();
    const start = performance.now();
    await queue.resume();
    await finished;
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return {
      ms,
      cpuUs: used.user + used.system,
      elu: performance.eventLoopUtilization(elu).utilization,
    };
  } finally {
    await worker.close();
    options.counter?.unwrap(connection);
    connection.disconnect();
    await queue.obliterate({ force: true });
    await queue.close();
  }
}

type SendCommand = Redis["sendCommand"];

/** Counts the commands a client sends, by label, by wrapping its sendCommand. */
class CommandCounter {
  readonly #counts = new Map<string, number>();
  readonly #originals = new Map<Redis, SendCommand>();
  /** Per side: commands sent and not answered yet, and how often that went from none to one (see waits). */
  readonly #inFlight = new Map<string, number>();
  readonly #waits = new Map<string, number>();

  wrap(redis: Redis, side: string): void {
    const original = redis.sendCommand.bind(redis) as SendCommand;
    this.#originals.set(redis, redis.sendCommand);
    const counts = this.#counts;
    redis.sendCommand = ((command: Parameters<SendCommand>[0], stream?: Parameters<SendCommand>[1]) => {
      const label = `${side} ${labelOf(command as unknown as RedisCommandLike)}${stream ? " (pipelined)" : ""}`;
      counts.set(label, (counts.get(label) ?? 0) + 1);
      const inFlight = this.#inFlight.get(side) ?? 0;
      this.#inFlight.set(side, inFlight + 1);
      if (inFlight === 0) this.#waits.set(side, (this.#waits.get(side) ?? 0) + 1);
      const sent = original(command, stream) as Promise<unknown>;
      const settled = () => {
        this.#inFlight.set(side, (this.#inFlight.get(side) ?? 1) - 1);
      };
      sent.then(settled, settled);
      return sent;
    }) as SendCommand;
  }

  unwrap(redis: Redis): void {
    const original = this.#originals.get(redis);
    if (original) redis.sendCommand = original;
  }

  sorted(): [string, number][] {
    return [...this.#counts.entries()].sort((a, b) => b[1] - a[1]);
  }

  /**
   * Round trips in sequence: a command sent while none of this client's is unanswered starts one,
   * a command sent beside another (the same turn, a pipeline, a Promise.all) shares its wait. With
   * one run on the client this is what the run waits for, plus any write it sends and does not
   * await while idle (an over-count, never an under-count).
   */
  waits(side: string): number {
    return this.#waits.get(side) ?? 0;
  }

  total(): number {
    let sum = 0;
    for (const n of this.#counts.values()) sum += n;
    return sum;
  }
}

interface RedisCommandLike {
  name: string;
  args: unknown[];
}

/** A command's name; for scripts, what they touch (journal, audit, spill or a BullMQ script). */
function labelOf(command: RedisCommandLike): string {
  const name = command.name.toLowerCase();
  if (name !== "evalsha" && name !== "eval") return name;
  const firstKey = String(command.args[2] ?? "");
  if (firstKey.includes("{audit}")) return "script audit";
  if (firstKey.endsWith(":journal")) return "script journal";
  return "script";
}

async function pingUs(redis: Redis): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const start = performance.now();
    await redis.ping();
    samples.push((performance.now() - start) * 1000);
  }
  return median(samples);
}

function pct(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** A human-readable report of {@link runAgentBench}'s result. */
export function formatAgentBench(result: AgentBenchResult): string {
  const lines = [
    `agent runs (${result.callsPerRun} no-op read_file calls each) vs raw BullMQ no-op jobs, target ratio >= ${result.targetRatio}:`,
  ];
  for (const t of result.throughput) {
    lines.push(
      `  concurrency ${String(t.concurrency).padStart(2)}: ${Math.round(t.toolCallsPerSec)} tool calls/s vs ` +
        `${Math.round(t.baselineJobsPerSec)} jobs/s; ratio ${t.ratio.toFixed(2)} (${t.ratio >= result.targetRatio ? "met" : "MISSED"}); ` +
        `CPU ${Math.round(t.cpuUsPerCall)} µs/call vs ${Math.round(t.cpuUsPerJob)} µs/job; ` +
        `event loop busy ${pct(t.agentLoopUtilization)} vs ${pct(t.rawLoopUtilization)}`,
    );
  }
  const p = result.profile;
  const parts = Object.entries(p.commandsPerCall).map(([label, n]) => `${label} ${n.toFixed(2)}`);
  lines.push(
    `  per tool call: ${p.runRoundTripsPerCall.toFixed(2)} round trips the run waits for ` +
      `(${p.runCommandsPerCall.toFixed(2)} commands: journal, audit), ` +
      `PING ${p.pingUs.toFixed(0)} µs; BullMQ sends ${p.bullmqCommandsPerJob.toFixed(1)} commands per raw job`,
    `  commands per tool call: ${parts.join(", ")}`,
  );
  const c = result.cluster;
  if (c) {
    lines.push(
      `  on a three-master Redis Cluster, concurrency ${c.concurrency}: ${Math.round(c.toolCallsPerSec)} tool calls/s vs ` +
        `${Math.round(c.baselineJobsPerSec)} jobs/s; ratio ${c.ratio.toFixed(2)}; CPU ${Math.round(c.cpuUsPerCall)} µs/call vs ` +
        `${Math.round(c.cpuUsPerJob)} µs/job; per master over the agent rounds (port: keys / commands / CPU s): ` +
        c.masters.map((m) => `${m.port}: ${m.keys} / ${m.commands} / ${m.cpuSeconds.toFixed(1)}`).join(", "),
    );
  }
  return lines.join("\n");
}

runStandalone("agent", async (redisUrl) => formatAgentBench(await runAgentBench({ redisUrl })));
