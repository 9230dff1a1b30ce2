import { join } from "node:path";
import { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import type { NodeProcess } from "../helpers/chaos.js";
import { repeated, waitAllCompleted, waitFor } from "../helpers/chaos.js";
import { type ChaosStack, startChaosStack } from "../helpers/chaos-stack.js";
import { startCli } from "../helpers/cli-process.js";
import { fillRedisToOom } from "../helpers/redis-oom.js";

/**
 * Redis out of memory (maxmemory reached under noeviction) for a while, as a load test found it:
 * runs that are running pause instead of spending their attempts, the worker logs the outage once,
 * `doctor` warns about memory while it lasts, and once Redis has room again every run completes,
 * none failed, none used a second attempt and no call ran twice (effects counted in a file, outside
 * Redis).
 */

const RUNS = 4;
const STEPS = 6;
/** How long Redis stays full: 15 s by default (inside the 30 s job lock); CHAOS_OOM_SECONDS=60 for an outage past the lock. */
const OUTAGE_MS = Number(process.env.CHAOS_OOM_SECONDS ?? "15") * 1000;
let stack: ChaosStack;
let worker: NodeProcess;

beforeAll(async () => {
  const script: unknown[] = [];
  for (let i = 0; i < STEPS; i++) {
    script.push({ tool_calls: [{ name: "write_file", arguments: { path: `f${i}.txt`, content: `c${i}` } }] });
  }
  script.push({ content: "done" });
  stack = await startChaosStack({ approvers: ["alice"], script, concurrency: RUNS });
  worker = await stack.startWorker({ TOOL_DELAY_MS: "400", LOG_LEVEL: "info" });
});

afterAll(async () => {
  await stack?.stop();
});

/** `echo-runner doctor --json` against the stack's Redis. */
async function doctor(): Promise<{ name: string; status: string; reason: string; fix: string | null }[]> {
  const cli = startCli(["doctor", "--json", "--config", join(stack.dir, "echo.yaml")], {
    cwd: stack.dir,
    env: { PATH: process.env.PATH, HOME: stack.dir, REDIS_URL: stack.redis.url },
  });
  // The process may exit before its piped output is read: wait for the report's last line.
  await cli.waitForOutput(/^}\s*$/m, 60_000);
  await cli.exited;
  const text = cli.output();
  return JSON.parse(text.slice(text.indexOf("{"))).checks;
}

describe("a Redis out of memory while runs run", () => {
  it("pauses the runs, which all complete once Redis has room again: none failed, no attempt spent, no call run twice", async () => {
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const payload = testPayload();
      await enqueueAgentRun(stack.queue, payload);
      runIds.push(payload.runId);
    }
    // Every run is under way (a call each at least) before Redis fills up.
    await waitFor(
      "every run to have run a call",
      async () => ((await stack.counts()).size >= RUNS ? true : undefined),
      60_000,
    );
    const oom = await fillRedisToOom(stack.client, `${stack.keyPrefix}:filler`);
    const filledAt = Date.now();
    let released = false;
    let during = 0;
    try {
      const startedAt = Date.now();
      // Calls in flight when Redis filled up finish; after that nothing runs until it has room.
      await new Promise((r) => setTimeout(r, 3000));
      during = [...(await stack.counts()).values()].reduce((a, b) => a + b, 0);
      const memory = (await doctor()).find((c) => c.name === "redis.memory.used");
      expect(memory?.status).toBe("warn");
      expect(memory?.reason).toMatch(/maxmemory/);
      expect(memory?.fix).toMatch(/maxmemory/);
      await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - startedAt))));
      const after = [...(await stack.counts()).values()].reduce((a, b) => a + b, 0);
      expect(after, "calls ran while Redis refused writes").toBe(during);
      expect(during).toBeLessThan(RUNS * STEPS);
      await oom.release();
      released = true;
    } finally {
      if (!released) await oom.release();
    }

    const releasedAt = Date.now();
    await waitAllCompleted(stack.queue, runIds, 120_000);
    const completedAfterMs = Date.now() - releasedAt;
    let stalls = 0;
    for (const id of runIds) {
      const job = await Job.fromId(stack.queue, id);
      stalls += job?.stalledCounter ?? 0;
      // BullMQ counts the attempt that completed a job: 1 is the run's first and only attempt.
      expect(job?.attemptsMade ?? -1, `attempts spent by ${id}`).toBe(1);
      expect(job?.failedReason ?? "").toBe("");
    }
    const counts = await stack.counts();
    expect(repeated(counts), "calls run twice").toEqual([]);
    expect(counts.size).toBe(RUNS * STEPS);
    await stack.verifyAudit();

    const log = worker.output();
    const outageLines = log
      .split("\n")
      .filter((l) => /Redis is out of memory|Redis takes commands again/.test(l));
    expect(
      log.match(/Redis is out of memory/g) ?? [],
      `one line per outage:\n${outageLines.join("\n")}`,
    ).toHaveLength(1);
    expect(log).toMatch(/Redis takes commands again after [\d.]+ s \(oom\)/);
    const metric = await stack.client.hget(`${stack.keyPrefix}:{metrics}:c:redis_outages`, '["oom"]');
    expect(Number(metric)).toBe(1);
    const waited = /Redis takes commands again after ([\d.]+) s/.exec(log)?.[1];
    // Past the 30 s job lock, a stall check hands a job out again once Redis is back (its first
    // attempt's completion is refused for the lost lock): counted here, 0 inside the lock.
    const parks = log.split("\n").filter((l) => l.includes('"msg":"run parked"')).length;
    console.log(
      `[chaos redis-oom] ${RUNS} runs x ${STEPS} calls; Redis at maxmemory (noeviction) for ${((releasedAt - filledAt) / 1000).toFixed(1)} s ` +
        `after ${during} calls had run; none ran during it; the worker waited ${waited} s (one outage logged); ` +
        `all ${RUNS} completed ${(completedAfterMs / 1000).toFixed(1)} s after Redis had room (${stalls} stalls, ${parks} parks), attemptsMade 1 each, ${counts.size} calls once, 0 twice`,
    );
  });
});
