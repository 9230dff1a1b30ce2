import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { Journal } from "../../src/journal/index.js";
import type { AgentJobPayload } from "../../src/queue/index.js";
import { bullPrefix, enqueueAgentRun } from "../../src/queue/index.js";
import { countExecutions, crashRunFiles, testPayload, writeScript } from "../helpers/agent-harness.js";
import {
  chaosSeed,
  jobStates,
  killHard,
  type NodeProcess,
  prng,
  repeated,
  startNodeProcess,
  verifyChain,
  waitFor,
} from "../helpers/chaos.js";
import { CrashableRedis } from "../helpers/crashable-redis.js";

/**
 * Scenario h: the machine crashes (power loss, VM reset) while runs are under way. Two worker
 * processes (concurrency 3, BullMQ's default 30 s lock and stall check, the runner's 15 s claim
 * lease) run six runs of eight counted `write_file` calls (150 ms each) against a redis-server run
 * under strace (test/helpers/crashable-redis.ts). At a random point 1.5–2.5 s into the runs the
 * workers and Redis are SIGKILLed in the same tick, and every AOF file is cut back to its length
 * at the last fsync that returned, as
 * observed by strace: a write Redis had only handed to the kernel is what a power loss takes, and
 * nothing more is taken (the counter file stands for the world outside the machine: an effect that
 * happened stays). Redis starts again on what is left, two workers start on the same data dir, and
 * the runs finish.
 *
 * Under `appendfsync always` (the embedded Redis's setting) Redis fsyncs before it replies, so
 * every claim a worker saw acknowledged survives: asserted 0 calls twice, every run completed, every
 * completed call once, the chain verifies. The second test runs the same crashes under `everysec`,
 * where these assertions would fail, and reports how many calls ran twice and how many were in
 * doubt (asserting only that acknowledged writes were dropped: the simulation bites).
 *
 * Recovery: a restarted worker finds the dead workers' records in the data dir and moves their
 * runs back to wait at once (src/queue/reclaim-runs.ts); the test measures the time from the first
 * restarted worker's ready line until every unfinished run has recorded a new journal entry, and
 * asserts it stays under 10 s (BullMQ alone: its 30 s lock plus up to 30 s to its next stall check).
 *
 * CHAOS_CRASHES (default 2) crashes per test; CHAOS_SEED replays the random crash points;
 * CHAOS_CRASH_RECLAIM=off starts the workers without records (the resume assertion then fails).
 */

const RUNS = 6;
const STEPS = 8;
const CRASHES = Number(process.env.CHAOS_CRASHES ?? 2);
const RESUME_LIMIT_MS = 10_000;

/** `off`: workers without records, BullMQ's lock and stall check alone (the figure before worker records). */
const RECLAIM = process.env.CHAOS_CRASH_RECLAIM !== "off";

interface CrashRound {
  dropped: number;
  /** From the first restarted worker's ready line until every unfinished run recorded something. */
  resumeMs: number;
  /** The same from the moment the workers were started again (process start included). */
  sinceStartMs: number;
}

async function progressOf(journal: Journal, runs: readonly AgentJobPayload[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const p of runs) counts.set(p.runId, (await journal.readRun(p.runId)).records.size);
  return counts;
}

/** Waits until every run's job has ended (or is missing: lost with the AOF tail). */
async function allEnded(queue: Queue, runs: readonly AgentJobPayload[]): Promise<void> {
  await waitFor(
    "every run to end",
    async () => {
      const states = await jobStates(
        queue,
        runs.map((p) => p.runId),
      );
      return [...states.values()].every((s) => ["completed", "failed", "missing"].includes(s))
        ? true
        : undefined;
    },
    180_000,
    200,
  );
}

async function crashRuns(appendfsync: "always" | "everysec") {
  const seed = chaosSeed(`chaos machine-crash ${appendfsync}`);
  const random = prng(seed);
  const server = await CrashableRedis.start(appendfsync);
  const dataDir = await mkdtemp(join(tmpdir(), "echo-crash-data-"));
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  redis.on("error", () => undefined);
  const keyPrefix = "chaos-crash";
  const files = await crashRunFiles(writeScript(STEPS, "survived"));
  const env = {
    REDIS_URL: server.url,
    KEY_PREFIX: keyPrefix,
    ...files.env,
    TOOL_DELAY_MS: "150",
    CLAIM_LEASE_MS: "15000",
    LOCK_MS: "30000",
    STALLED_MS: "30000",
    CONCURRENCY: "3",
    ...(RECLAIM ? { WORKER_RECORDS_DIR: join(dataDir, "workers") } : {}),
  };
  const queue = new Queue("agent", { connection: redis, prefix: bullPrefix(keyPrefix) });
  queue.on("error", () => undefined); // Redis is down during each crash, on purpose
  const journal = new Journal({ redis, keyPrefix });
  const start = () => startNodeProcess("test/helpers/agent-worker-main.ts", env);
  let workers: NodeProcess[] = [start(), start()];
  const payloads: AgentJobPayload[] = [];
  const rounds: CrashRound[] = [];
  try {
    await Promise.all(workers.map((w) => w.ready));
    for (let crash = 0; crash < CRASHES; crash++) {
      // One wave at a time, so each crash lands on its own wave's runs in progress.
      await allEnded(queue, payloads);
      const wave = Array.from({ length: RUNS }, () => testPayload());
      payloads.push(...wave);
      for (const p of wave) await enqueueAgentRun(queue, p);
      const before = [...(await countExecutions(files.counter)).values()].reduce((a, b) => a + b, 0);
      await waitFor(
        `the first call of crash ${crash + 1}'s runs`,
        async () => {
          const n = [...(await countExecutions(files.counter)).values()].reduce((a, b) => a + b, 0);
          return n > before ? true : undefined;
        },
        120_000,
        10,
      );
      // Crash with work in flight, 1.5–2.5 s into the wave (a run takes about 3 s): past the last
      // second an everysec fsync may not yet cover, so the crash lands inside runs, not only before them.
      await new Promise((r) => setTimeout(r, 1500 + Math.floor(random() * 1000)));
      // The whole machine at once: nothing runs between these kills.
      for (const w of workers) w.child.kill("SIGKILL");
      const crashed = server.crash();
      await Promise.all(workers.map((w) => w.exited));
      const { droppedBytes } = await crashed;
      await server.restart();
      const restarted = Date.now();
      workers = [start(), start()];
      await Promise.race(workers.map((w) => w.ready));
      const ready = Date.now();
      const states = await jobStates(
        queue,
        payloads.map((p) => p.runId),
      );
      // A job missing after the restart was enqueued in the AOF tail the crash took (everysec only).
      const unfinished = payloads.filter(
        (p) => !["completed", "failed", "missing"].includes(states.get(p.runId) ?? ""),
      );
      const atRestart = await progressOf(journal, unfinished);
      const stuck = async () => {
        const now = await progressOf(journal, unfinished);
        const lines: string[] = [];
        for (const p of unfinished) {
          if ((now.get(p.runId) ?? 0) > (atRestart.get(p.runId) ?? 0)) continue;
          const job = await queue.getJob(p.runId);
          const lock = await redis.get(`${queue.toKey(p.runId)}:lock`);
          lines.push(`${p.runId}: ${await job?.getState()} lock ${lock} stc ${job?.stalledCounter}`);
        }
        return lines.join("; ");
      };
      await waitFor(
        "every unfinished run to record something new after the restart",
        async () => {
          const now = await progressOf(journal, unfinished);
          const finished = await jobStates(
            queue,
            unfinished.map((p) => p.runId),
          );
          return unfinished.every(
            (p) =>
              (now.get(p.runId) ?? 0) > (atRestart.get(p.runId) ?? 0) ||
              ["completed", "failed"].includes(finished.get(p.runId) ?? ""),
          )
            ? true
            : undefined;
        },
        120_000,
        100,
      ).catch(async (err: Error) => {
        throw new Error(
          `${err.message}; not resumed: ${await stuck()}; a worker: ${workers[0]?.output().slice(-3000)}`,
        );
      });
      rounds.push({
        dropped: droppedBytes,
        resumeMs: Date.now() - ready,
        sinceStartMs: Date.now() - restarted,
      });
      await Promise.all(workers.map((w) => w.ready));
    }
    await allEnded(queue, payloads);
  } finally {
    for (const w of workers) await killHard(w.child);
  }
  const states = await jobStates(
    queue,
    payloads.map((p) => p.runId),
  );
  const counts = await countExecutions(files.counter);
  let succeeded = 0;
  let inDoubt = 0;
  const completedTwice: string[] = [];
  for (const p of payloads) {
    for (const [key, record] of (await journal.readRun(p.runId)).records) {
      if (key.startsWith("model:") || record.status !== "completed") continue;
      const result = record.result as { success: boolean; errorKind?: string };
      if (result.success) {
        succeeded++;
        if (counts.get(key) !== 1) completedTwice.push(key);
      } else if (result.errorKind === "in_doubt") inDoubt++;
    }
  }
  const recorded = new Set<string>();
  for (const p of payloads) {
    for (const [key, record] of (await journal.readRun(p.runId)).records) {
      if (record.status === "completed") recorded.add(key);
    }
  }
  // Effects that happened but that no journal remembers (their claim and result were in the lost tail).
  const unrecorded = [...counts.keys()].filter((key) => !recorded.has(key)).length;
  const chain = await verifyChain(redis, keyPrefix).then(
    (n) => `${n} audit entries verify`,
    (err: Error) => `audit: ${err.message}`,
  );
  await queue.close();
  redis.disconnect();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
  return { seed, rounds, states, counts, succeeded, inDoubt, completedTwice, unrecorded, chain, payloads };
}

function summary(label: string, r: Awaited<ReturnType<typeof crashRuns>>): string {
  const completed = [...r.states.values()].filter((s) => s === "completed").length;
  const lost = [...r.states.values()].filter((s) => s === "missing").length;
  return (
    `[chaos machine-crash ${label}] seed ${r.seed}: ${r.rounds.length} crashes, AOF bytes dropped ` +
    `${r.rounds.map((x) => x.dropped).join(" / ")}, runs resumed ` +
    `${r.rounds.map((x) => (x.resumeMs / 1000).toFixed(1)).join(" / ")} s after the restarted worker was ready ` +
    `(${r.rounds.map((x) => (x.sinceStartMs / 1000).toFixed(1)).join(" / ")} s after it was started${RECLAIM ? "" : ", no worker records"}); ` +
    `${r.payloads.length} runs × ${STEPS} calls: ${completed} completed, ${lost} lost (enqueue acknowledged, gone after the crash), ` +
    `${r.succeeded} calls ran, ` +
    `${r.inDoubt} in doubt (not re-run), ${repeated(r.counts).length} twice, ${r.unrecorded} effects no journal records; ${r.chain}`
  );
}

describe("chaos: machine crash (unsynced AOF tail dropped)", () => {
  it("appendfsync always: no call runs twice, every run completes, runs resume within 10 s", async () => {
    const r = await crashRuns("always");
    console.info(summary("always", r));
    expect(repeated(r.counts), `calls run twice (seed ${r.seed})`).toEqual([]);
    expect(r.completedTwice, `completed calls whose effect is not there exactly once`).toEqual([]);
    expect(
      [...r.states.values()].every((s) => s === "completed"),
      JSON.stringify([...r.states]),
    ).toBe(true);
    expect(r.succeeded + r.inDoubt).toBe(r.payloads.length * STEPS);
    expect(r.chain).toMatch(/audit entries verify/);
    for (const round of r.rounds) expect(round.resumeMs).toBeLessThan(RESUME_LIMIT_MS);
  });

  it("appendfsync everysec: reports what a crash costs (acknowledged writes lost, calls run twice)", async () => {
    const r = await crashRuns("everysec");
    console.info(summary("everysec", r));
    // The simulation must bite: under everysec a crash mid-run drops acknowledged writes.
    expect(r.rounds.some((x) => x.dropped > 0)).toBe(true);
  });
});
