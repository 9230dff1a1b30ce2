import { type ChildProcess, spawn } from "node:child_process";
import { Job } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { Journal } from "../../src/journal/index.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import {
  agentQueue,
  countExecutions,
  crashRunFiles,
  testPayload,
  writeScript,
} from "../helpers/agent-harness.js";
import { chaosSeed, killLandedOnWork, prng, readyWorkerId } from "../helpers/chaos.js";
import { REPO_ROOT } from "../helpers/cli-process.js";
import { nodeEntryArgs } from "../helpers/node-entry.js";
import { testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

function startWorker(env: Record<string, string>): {
  child: ChildProcess;
  ready: Promise<void>;
  output: () => string;
} {
  const child = spawn(process.execPath, nodeEntryArgs("test/helpers/agent-worker-main.ts"), {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const ready = new Promise<void>((done, fail) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("worker ready")) done();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code) => fail(new Error(`worker exited (${code}) before ready:\n${out}`)));
  });
  return { child, ready, output: () => out };
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGKILL");
  });
}

async function waitForFinish(
  jobId: string,
  queue: ReturnType<typeof agentQueue>,
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await Job.fromId(queue, jobId);
    const state = job ? await job.getState() : "missing";
    if (state === "completed" || state === "failed" || Date.now() > deadline) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("agent runs survive SIGKILL of their worker at random points", () => {
  it("completes every run, with no side effect twice, across 30 kills", async () => {
    const seed = chaosSeed("agent-crash");
    const random = prng(seed);
    const keyPrefix = uniquePrefix("crash");
    const { counter, env: files } = await crashRunFiles(writeScript(20, "survived"));
    const env = {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: keyPrefix,
      ...files,
      TOOL_DELAY_MS: "8",
      CLAIM_LEASE_MS: "900",
      LOCK_MS: "900",
    };
    const queue = agentQueue(redis, keyPrefix);
    const payloads = [testPayload(), testPayload(), testPayload()];
    for (const p of payloads) await enqueueAgentRun(queue, p);
    let kills = 0;
    let landed = 0;
    try {
      while (kills < 30) {
        const worker = startWorker(env);
        await worker.ready;
        await new Promise((r) => setTimeout(r, 30 + Math.floor(random() * 300)));
        await kill(worker.child);
        kills++;
        if (await killLandedOnWork(redis, queue, readyWorkerId(worker.output()))) landed++;
      }
      // Kills that all hit an idle worker prove nothing about crashes: such a run must fail.
      expect(landed, `kills that hit a run in progress, of ${kills} (seed ${seed})`).toBeGreaterThan(0);
      const final = startWorker(env);
      await final.ready;
      try {
        for (const p of payloads) {
          expect(await waitForFinish(p.runId, queue, 60_000), `run ${p.runId} (seed ${seed})`).toBe(
            "completed",
          );
        }
      } finally {
        await kill(final.child);
      }
      const counts = await countExecutions(counter);
      const twice = [...counts.entries()].filter(([, n]) => n > 1);
      expect(twice, `side effects run twice (seed ${seed})`).toEqual([]);
      const journal = new Journal({ redis, keyPrefix });
      let succeeded = 0;
      let inDoubt = 0;
      for (const p of payloads) {
        const snapshot = await journal.readRun(p.runId);
        for (const [key, record] of snapshot.records) {
          if (key.startsWith("model:") || record.status !== "completed") continue;
          const result = record.result as { success: boolean; errorKind?: string };
          if (result.success) {
            succeeded++;
            expect(counts.get(key), `completed call ${key} ran exactly once (seed ${seed})`).toBe(1);
          } else {
            expect(result.errorKind).toBe("in_doubt");
            inDoubt++;
          }
        }
        const job = await Job.fromId(queue, p.runId);
        expect(job?.returnvalue).toMatchObject({ status: "completed", finalAnswer: "survived" });
      }
      expect(succeeded + inDoubt).toBe(60);
      console.info(
        `[agent-crash] seed ${seed}: ${kills} kills, ${landed} on a run in progress; ${succeeded} calls ran once, ${inDoubt} in doubt`,
      );
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 240_000);
});
