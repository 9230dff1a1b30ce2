import { afterAll, describe, expect, it } from "vitest";
import { enqueueAgentRun, findRunJob } from "../../src/queue/index.js";
import { agentQueue, testPayload } from "../helpers/agent-harness.js";
import { startParkingWorker } from "../helpers/parking-worker.js";
import { testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

describe("cancelling a parked run", () => {
  it("marks its pending approvals cancelled when its job is removed, so no orphan stays pending", async () => {
    const keyPrefix = uniquePrefix("cancel");
    const worker = await startParkingWorker({
      redis,
      redisUrl: testRedisUrl(),
      keyPrefix,
      publicUrl: "http://127.0.0.1:9",
      concurrency: 1,
    });
    const queue = agentQueue(redis, keyPrefix);
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("delayed");
      const [pending] = await worker.store.list({ status: "pending" });
      expect(pending?.runId).toBe(payload.runId);
      await (await findRunJob(queue, payload.runId))!.remove();
      await expect
        .poll(async () => (await worker.store.get(pending!.id))?.status, { timeout: 10_000 })
        .toBe("cancelled");
      expect(await worker.store.list({ status: "pending" })).toEqual([]);
    } finally {
      await worker.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
