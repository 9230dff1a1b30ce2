import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Job, Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Journal } from "../../src/journal/index.js";
import { bullPrefix, enqueueAgentRun } from "../../src/queue/index.js";
import { countExecutions, testPayload, writeScript } from "../helpers/agent-harness.js";
import {
  chaosSeed,
  killHard,
  killLandedOnWork,
  type NodeProcess,
  prng,
  readyWorkerId,
  repeated,
  startNodeProcess,
  verifyChain,
  waitAllCompleted,
  waitFor,
} from "../helpers/chaos.js";
import { type RedisServerProcess, startRedisServer } from "../helpers/redis-server.js";

/**
 * Scenario a: worker processes SIGKILLed at random points under load. Two workers (concurrency 3
 * each) share one queue of runs whose every step is a side-effecting, non-idempotent tool that
 * appends a line to a file outside the journal; one of them is killed at a random moment, again and
 * again, and replaced. Afterwards every run finishes, no side effect happened twice, every completed
 * call happened exactly once, and the audit chain verifies.
 */

const RUNS = 6;
const STEPS = 8;
const KILLS = Number(process.env.CHAOS_KILLS ?? 10);
let server: RedisServerProcess;
let redis: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe("chaos: SIGKILL of workers at random points under load", () => {
  it("every run finishes and no side effect happens twice", async () => {
    const started = Date.now();
    const seed = chaosSeed("chaos worker-kill");
    const random = prng(seed);
    const keyPrefix = "chaos-kill";
    const counter = join(server.dir, "counter.txt");
    const scriptFile = join(server.dir, "script.yaml");
    await writeFile(scriptFile, writeScript(STEPS, "survived"));
    const env = {
      REDIS_URL: server.url,
      KEY_PREFIX: keyPrefix,
      COUNTER_FILE: counter,
      SCRIPT_FILE: scriptFile,
      TOOL_DELAY_MS: "10",
      CLAIM_LEASE_MS: "900",
      LOCK_MS: "900",
      CONCURRENCY: "3",
    };
    const queue = new Queue("agent", { connection: redis, prefix: bullPrefix(keyPrefix) });
    const payloads = Array.from({ length: RUNS }, () => testPayload());
    for (const p of payloads) await enqueueAgentRun(queue, p);
    const start = () => startNodeProcess("test/helpers/agent-worker-main.ts", env);
    const workers: NodeProcess[] = [start(), start()];
    let kills = 0;
    let landed = 0;
    const holdsWork = (workerId: string) => killLandedOnWork(redis, queue, workerId);
    const keepWorkQueued = async () => {
      if ((await queue.getActiveCount()) + (await queue.getWaitingCount()) < RUNS / 2) {
        const more = testPayload();
        payloads.push(more);
        await enqueueAgentRun(queue, more);
      }
    };
    try {
      await Promise.all(workers.map((w) => w.ready));
      while (kills < KILLS) {
        // Work in flight for every kill: a new run whenever fewer than RUNS / 2 are unfinished (the
        // first ones end long before the tenth kill), and the victim a worker holding one, at random
        // among those that do, bounded. A victim picked blindly was idle for most kills (3 of 10
        // landed on a run), and each such pick waited out the whole bound: ~30 s of CI apiece.
        const victim = await waitFor(
          "a worker to run a job",
          async () => {
            await keepWorkQueued();
            const holding: number[] = [];
            for (let i = 0; i < workers.length; i++) {
              if (await holdsWork(readyWorkerId(workers[i]!.output()))) holding.push(i);
            }
            return holding.length > 0 ? holding[Math.floor(random() * holding.length)] : undefined;
          },
          30_000,
          20,
        ).catch(() => Math.floor(random() * workers.length));
        const victimId = readyWorkerId(workers[victim]!.output());
        await new Promise((r) => setTimeout(r, Math.floor(random() * 300)));
        await killHard(workers[victim]!.child);
        kills++;
        if (await killLandedOnWork(redis, queue, victimId)) landed++;
        workers[victim] = start();
        await workers[victim]!.ready;
      }
      await waitAllCompleted(
        queue,
        payloads.map((p) => p.runId),
        120_000,
      );
    } finally {
      for (const w of workers) await killHard(w.child);
    }
    // A run whose every kill hit an idle worker proves nothing about crashes: it must fail.
    expect(landed, `kills that hit a run in progress, of ${kills} (seed ${seed})`).toBeGreaterThan(0);
    const counts = await countExecutions(counter);
    expect(repeated(counts), `side effects run twice (seed ${seed})`).toEqual([]);
    const journal = new Journal({ redis, keyPrefix });
    let succeeded = 0;
    let inDoubt = 0;
    for (const p of payloads) {
      const snapshot = await journal.readRun(p.runId);
      for (const [key, record] of snapshot.records) {
        if (key.startsWith("model:")) continue;
        expect(record.status, `call ${key} of ${p.runId} (seed ${seed})`).toBe("completed");
        if (record.status !== "completed") continue;
        const result = record.result as { success: boolean; errorKind?: string };
        if (result.success) {
          succeeded++;
          expect(counts.get(key), `completed call ${key} ran exactly once (seed ${seed})`).toBe(1);
        } else {
          // Killed between its claim and its result: never run again (the tool is not idempotent).
          expect(result.errorKind).toBe("in_doubt");
          inDoubt++;
        }
      }
      const job = await Job.fromId(queue, p.runId);
      expect(job?.returnvalue).toMatchObject({ status: "completed", finalAnswer: "survived" });
    }
    expect(succeeded + inDoubt).toBe(payloads.length * STEPS);
    const entries = await verifyChain(redis, keyPrefix);
    expect(entries).toBeGreaterThan(0);
    await queue.close();
    console.info(
      `[chaos worker-kill] seed ${seed}: ${kills} kills (${landed} on a run in progress), ${payloads.length} runs × ${STEPS} calls: ` +
        `${succeeded} ran once, ${inDoubt} in doubt (not re-run), 0 twice; ${entries} audit entries verified; ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
