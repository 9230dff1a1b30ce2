import { afterAll, describe, expect, it } from "vitest";
import { testPayload } from "../../test/helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { queueChildren } from "./children.js";
import { findRunJob, openAgentQueue } from "./queues.js";
import { startRunWorker } from "./run-worker.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

describe("queueChildren", () => {
  it("updates a queued child atomically, refuses a started or missing one, and stops by state", async () => {
    const keyPrefix = uniquePrefix("qc");
    const queue = openAgentQueue(redis, keyPrefix);
    const children = queueChildren(queue, { redis });
    try {
      const queued = testPayload({ parentExecutionId: "p" });
      await children.start(queued, { priority: 7 });
      expect(await children.update(queued.runId, { task: "new task", priority: 2 })).toBe("updated");
      const job = await findRunJob(queue, queued.runId);
      expect(job?.data.agent.task).toBe("new task");
      expect(job?.priority).toBe(2);
      expect((await children.payload(queued.runId))?.agent.task).toBe("new task");
      expect(await children.update("no-such-run", { task: "x" })).toBe("missing");

      // A worker takes the job and completes it: no longer queued, so no update.
      const worker = startRunWorker({
        connection: redis,
        keyPrefix,
        concurrency: 1,
        process: async () => ({ finalAnswer: "done" }),
      });
      await expect
        .poll(async () => (await findRunJob(queue, queued.runId))?.getState(), { timeout: 10_000 })
        .toBe("completed");
      await worker.close();
      expect(await children.update(queued.runId, { task: "too late" })).toBe("started");
      expect((await findRunJob(queue, queued.runId))?.data.agent.task).toBe("new task");
      expect(await children.stop(queued.runId)).toBe("finished");
      expect(await children.stopRequested(queued.runId)).toBe(false);

      const waiting = testPayload({ parentExecutionId: "p" });
      await children.start(waiting);
      expect(await children.stop(waiting.runId)).toBe("removed");
      expect(await findRunJob(queue, waiting.runId)).toBeUndefined();
      expect(await children.stopRequested(waiting.runId)).toBe(true);
      expect(await children.stop(waiting.runId)).toBe("missing");
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
