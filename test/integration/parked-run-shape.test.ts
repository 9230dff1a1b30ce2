import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditKeys, journalKey } from "../../src/journal/index.js";
import { bullPrefix, enqueueAgentRun, findRunJob } from "../../src/queue/index.js";
import { agentQueue, testPayload } from "../helpers/agent-harness.js";
import { type ParkingWorker, startParkingWorker } from "../helpers/parking-worker.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * What one run parked on an approval stores, through the production worker
 * (Redis memory per parked run, docs/BENCHMARKS.md). Each check pins a copy left out of the stored form; the readers of
 * what earlier releases stored are tested where each form is read.
 */
const redis = testRedisClient();
const keyPrefix = uniquePrefix("parked-shape");
const queue = agentQueue(redis, keyPrefix);
const payload = testPayload();
let worker: ParkingWorker;

beforeAll(async () => {
  worker = await startParkingWorker({
    redis,
    redisUrl: testRedisUrl(),
    keyPrefix,
    publicUrl: "http://127.0.0.1:9",
    concurrency: 1,
  });
  await enqueueAgentRun(queue, payload);
  const deadline = Date.now() + 15_000;
  while ((await findRunJob(queue, payload.runId))?.finishedOn === undefined) {
    if ((await queue.getJobState(payload.runId)) === "delayed") return;
    if (Date.now() > deadline) throw new Error("the run did not park within 15 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the run finished instead of parking");
}, 30_000);

afterAll(async () => {
  await worker.stop();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  await deleteKeysWithPrefix(redis, bullPrefix(keyPrefix));
  redis.disconnect();
});

describe("a run parked on an approval", () => {
  it("stores its BullMQ job without a copy of its id (the key holds it) nor the retention in its options", async () => {
    const opts = JSON.parse((await redis.hget(`${bullPrefix(keyPrefix)}:agent:${payload.runId}`, "opts"))!);
    // Nor how many finished runs to keep: that is the worker's setting (retention.finished_jobs).
    expect(opts).toEqual({ attempts: 5, backoff: { type: "exponential", delay: 1000 } });
    const job = await findRunJob(queue, payload.runId);
    expect(job?.id).toBe(payload.runId);
  });

  it("keeps claim owners in its journal without the run id its key already names", async () => {
    const journal = await redis.hgetall(journalKey(keyPrefix, payload.runId));
    const states = Object.entries(journal).filter(([name]) => name.startsWith("s:"));
    expect(states.length).toBeGreaterThan(0);
    for (const [, state] of states) expect(JSON.parse(state).owner).not.toContain(payload.runId);
  });

  it("stores its ask entry in the audit trail without prev, which the entry before it holds", async () => {
    const rows = (await redis.xrange(auditKeys(keyPrefix).stream, "-", "+")) as [string, string[]][];
    const ask = rows.find(([, fields]) => JSON.parse(fields[1]!).verdict === "ask");
    expect(ask?.[1].filter((_, i) => i % 2 === 0)).toEqual(["entry", "hash"]);
  });
});
