import { afterAll, describe, expect, it } from "vitest";
import { ApprovalKeys } from "../../src/approvals/index.js";
import { enqueueAgentRun, findRunJob } from "../../src/queue/index.js";
import { agentQueue, testPayload } from "../helpers/agent-harness.js";
import { PARKING_APPROVER, startParkingWorker } from "../helpers/parking-worker.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * A decision recorded while no worker runs (the CLI, a separate `serve`)
 * is a durable fact. The worker that starts next wakes the run — from the events stream read on
 * from the stored position, or, when the stream no longer holds the decision, from its start scan —
 * and the run executes the approved call once, even when it wakes after the request's deadline.
 */

const redis = testRedisClient();
const prefixes: string[] = [];

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

/** A parking worker on a fresh prefix; `approval` sets permissions.approval. */
function worker(keyPrefix: string, onExecStart: (runId: string) => void, approval?: Record<string, unknown>) {
  return startParkingWorker({
    redis,
    redisUrl: testRedisUrl(),
    keyPrefix,
    publicUrl: "http://127.0.0.1:9",
    concurrency: 1,
    onExecStart,
    ...(approval ? { approval } : {}),
  });
}

/** Starts a worker, parks one run on its exec call, stops the worker: the run waits, nobody runs. */
async function parkedWithNoWorker(label: string, approval?: Record<string, unknown>) {
  const keyPrefix = uniquePrefix(label);
  prefixes.push(keyPrefix);
  const execs: string[] = [];
  const first = await worker(keyPrefix, (runId) => execs.push(runId), approval);
  const queue = agentQueue(redis, keyPrefix);
  const payload = testPayload();
  await enqueueAgentRun(queue, payload);
  await expect
    .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
    .toBe("delayed");
  const [request] = await first.store.list({ status: "pending" });
  expect(request?.runId).toBe(payload.runId);
  await first.stop();
  return { keyPrefix, execs, queue, payload, store: first.store, request: request! };
}

describe("a decision made while no worker runs", () => {
  it("resumes its run when a worker starts, from the events stream, and the call runs once", async () => {
    const { keyPrefix, execs, queue, payload, store, request } = await parkedWithNoWorker("down-stream");
    const decided = await store.decide({
      id: request.id,
      actor: { kind: "operator", id: PARKING_APPROVER, via: "cli" },
      decision: "approve",
    });
    expect(decided).toMatchObject({ outcome: "decided", final: true });
    // Nobody promoted it: the run still sleeps toward its deadline (an hour away).
    expect(await (await findRunJob(queue, payload.runId))?.getState()).toBe("delayed");
    const second = await worker(keyPrefix, (runId) => execs.push(runId));
    try {
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("completed");
      expect((await findRunJob(queue, payload.runId))?.returnvalue).toMatchObject({
        status: "completed",
        finalAnswer: "deployed",
      });
      expect(execs).toEqual([payload.runId]);
      // The promoter saved how far it woke runs: the next one reads on from there.
      const [event] = await store.readEvents("0");
      expect(await redis.get(new ApprovalKeys(keyPrefix).promoterPosition)).toBe(event!.streamId);
    } finally {
      await second.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("resumes its run from the start scan when the events stream no longer holds the decision", async () => {
    const { keyPrefix, execs, queue, payload, store, request } = await parkedWithNoWorker("down-scan");
    await store.decide({
      id: request.id,
      actor: { kind: "operator", id: PARKING_APPROVER, via: "cli" },
      decision: "approve",
    });
    const keys = new ApprovalKeys(keyPrefix);
    // Trimmed away (MAXLEN), and the saved position is past it: only the scan can find it.
    await redis.del(keys.events);
    await redis.set(keys.promoterPosition, `${Date.now() + 1000}-0`);
    const second = await worker(keyPrefix, (runId) => execs.push(runId));
    try {
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("completed");
      expect(execs).toEqual([payload.runId]);
    } finally {
      await second.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("runs an approval made before the deadline when the run wakes after the deadline and the grace", async () => {
    const { keyPrefix, execs, queue, payload, store, request } = await parkedWithNoWorker("down-late", {
      wait_timeout_seconds: 2,
    });
    await store.decide({
      id: request.id,
      actor: { kind: "operator", id: PARKING_APPROVER, via: "cli" },
      decision: "approve",
    });
    const keys = new ApprovalKeys(keyPrefix);
    // As if the decision came longer than the grace (15 min) before the deadline: the window ends
    // at the deadline, which the run only reaches after it (nobody ran a worker meanwhile).
    const deadline = Number(await redis.hget(keys.request(request.id), "deadline"));
    await redis.hset(keys.request(request.id), "execUntil", String(deadline));
    await expect.poll(() => Date.now() > deadline + 100, { timeout: 10_000 }).toBe(true);
    const second = await worker(keyPrefix, (runId) => execs.push(runId), { wait_timeout_seconds: 2 });
    try {
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("completed");
      expect((await findRunJob(queue, payload.runId))?.returnvalue).toMatchObject({
        finalAnswer: "deployed",
      });
      expect(execs).toEqual([payload.runId]);
      expect((await store.get(request.id))?.status).toBe("approved");
    } finally {
      await second.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
