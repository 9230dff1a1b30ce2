import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { testPayload } from "../../test/helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { enqueueAgentRun } from "./enqueue.js";
import { openAgentQueue, queueConnection } from "./queues.js";
import { startRunWorker } from "./run-worker.js";
import { WorkerRecords } from "./worker-records.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

/** A pid that no process has any more (a child that ran and was reaped). */
function deadPid(): number {
  const pid = spawnSync("true").pid;
  if (!pid) throw new Error("could not start true");
  return pid;
}

const never = () => new Promise<never>(() => undefined);

describe("a starting worker takes back the runs of gone workers", () => {
  it("moves a gone worker's active run back at once and leaves a live worker's run alone", async () => {
    const keyPrefix = uniquePrefix("reclaim");
    const dir = await mkdtemp(join(tmpdir(), "echo-workers-"));
    const queue = openAgentQueue(redis, keyPrefix);
    const lockDuration = 30_000;
    // The gone worker: it took a run, then its process "died" (it stops renewing, its record names a
    // pid that no longer exists). Its lock would hold the run for 30 s more.
    const ghost = new Worker(queue.name, never, { ...queueConnection(redis, keyPrefix), lockDuration });
    const first = testPayload();
    await enqueueAgentRun(queue, first);
    await expect.poll(async () => (await queue.getJob(first.runId))?.getState()).toBe("active");
    await ghost.close(true);
    // A worker of another host with a dead-looking pid: nothing proves it gone from here.
    await writeFile(
      join(dir, "elsewhere.json"),
      JSON.stringify({ v: 1, workerId: "elsewhere", pid: deadPid(), start: "1", boot: "", host: "other" }),
    );
    // A live worker of this process, recorded, holding the second run.
    const live = startRunWorker({
      connection: redis,
      keyPrefix,
      concurrency: 1,
      process: never,
      lockDurationMs: lockDuration,
      workerRecords: new WorkerRecords(dir),
    });
    const second = testPayload();
    await enqueueAgentRun(queue, second);
    await expect.poll(async () => (await queue.getJob(second.runId))?.getState()).toBe("active");
    const liveToken = await redis.get(`${queue.toKey(second.runId)}:lock`);
    expect(liveToken?.startsWith(`${live.id}:`)).toBe(true);
    // Recorded only now: the live worker's own start would otherwise have taken the run back.
    await writeFile(
      join(dir, `${ghost.id}.json`),
      JSON.stringify({ v: 1, workerId: ghost.id, pid: deadPid(), start: "1", boot: "", host: hostname() }),
    );
    const taken: string[] = [];
    const heldAtTakeBack: string[] = [];
    let reported: { runs: readonly string[]; from: readonly string[] } | undefined;
    const fresh = startRunWorker({
      connection: redis,
      keyPrefix,
      concurrency: 2,
      process: async (job) => {
        taken.push(job.id ?? "");
        return {};
      },
      lockDurationMs: lockDuration,
      workerRecords: new WorkerRecords(dir),
      // Runs while the gone worker's lock still holds the run (the agent worker lapses its claims here).
      beforeTakeBack: async (runId) => {
        heldAtTakeBack.push(`${runId} ${(await redis.get(`${queue.toKey(runId)}:lock`))?.split(":")[0]}`);
      },
      onReclaimed: (runs, from) => {
        reported = { runs, from };
      },
    });
    try {
      // Well inside the gone worker's 30 s lock.
      await expect.poll(() => taken, { timeout: 5_000 }).toEqual([first.runId]);
      expect(reported).toEqual({ runs: [first.runId], from: [ghost.id] });
      expect(heldAtTakeBack).toEqual([`${first.runId} ${ghost.id}`]);
      expect(await (await queue.getJob(second.runId))?.getState()).toBe("active");
      expect(await redis.get(`${queue.toKey(second.runId)}:lock`)).toBe(liveToken);
      expect((await readdir(dir)).sort()).toEqual(
        [`${fresh.id}.json`, `${live.id}.json`, "elsewhere.json"].sort(),
      );
    } finally {
      await fresh.close();
      await live.close(true);
      await queue.obliterate({ force: true });
      await queue.close();
      await rm(dir, { recursive: true, force: true });
    }
    // A worker that closes drops its record.
    expect(new WorkerRecords(dir).gone()).toEqual([]);
  });
});
