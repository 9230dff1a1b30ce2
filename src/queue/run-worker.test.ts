import { afterAll, describe, expect, it } from "vitest";
import { testPayload } from "../../test/helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { enqueueAgentRun } from "./enqueue.js";
import { failForGood } from "./job-signals.js";
import { openAgentQueue } from "./queues.js";
import { startRunWorker } from "./run-worker.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

describe("startRunWorker", () => {
  it("keeps as many finished runs as its keepFinished, which the jobs no longer carry", async () => {
    const keyPrefix = uniquePrefix("rw-keep");
    const queue = openAgentQueue(redis, keyPrefix);
    const worker = startRunWorker({
      connection: redis,
      keyPrefix,
      concurrency: 1,
      keepFinished: 2,
      process: async (job) => {
        if (job.data.agent.task === "fail") throw failForGood("failed for good");
        return { finalAnswer: "done" };
      },
    });
    try {
      for (let i = 0; i < 4; i++) await enqueueAgentRun(queue, testPayload());
      for (let i = 0; i < 3; i++) await enqueueAgentRun(queue, testPayload({}, { task: "fail" }));
      await expect
        .poll(
          async () => {
            const counts = await queue.getJobCounts("wait", "active", "delayed");
            return (counts.wait ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0);
          },
          { timeout: 15_000 },
        )
        .toBe(0);
      expect(await queue.getJobCounts("completed", "failed")).toEqual({ completed: 2, failed: 2 });
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
