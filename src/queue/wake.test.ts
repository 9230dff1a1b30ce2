import { afterAll, describe, expect, it } from "vitest";
import { testPayload } from "../../test/helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { startPromoter, type WakeEvent } from "./promoter.js";
import { findRunJob, newestAgentEventId, openAgentQueue, openAgentQueueEvents } from "./queues.js";
import { watchRemovedRuns } from "./removed-runs.js";
import { wakeRun } from "./wake.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

/** A delayed job on a fresh queue, as a parked run's job looks (delayed far into the future). */
async function parkedJob(keyPrefix: string) {
  const queue = openAgentQueue(redis, keyPrefix);
  const payload = testPayload();
  await queue.add("run", payload, { jobId: payload.runId, delay: 3_600_000 });
  return { queue, runId: payload.runId };
}

describe("waking parked runs", () => {
  it("wakeRun promotes a delayed job, and ignores one that is not delayed or not there", async () => {
    const { queue, runId } = await parkedJob(uniquePrefix("wake"));
    try {
      expect(await (await findRunJob(queue, runId))?.getState()).toBe("delayed");
      await wakeRun(queue, runId);
      expect(await (await findRunJob(queue, runId))?.getState()).toBe("waiting");
      await wakeRun(queue, runId);
      await wakeRun(queue, "no-such-run");
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("the promoter wakes the job of every event it reads, from new events on, and stops", async () => {
    const keyPrefix = uniquePrefix("promote");
    const { queue, runId } = await parkedJob(keyPrefix);
    const pending: WakeEvent[] = [{ streamId: "1-0", jobId: runId }];
    const afters: string[] = [];
    let interrupted = false;
    const promoter = startPromoter({
      connection: redis,
      keyPrefix,
      readEvents: async (after) => {
        afters.push(after);
        await new Promise((r) => setTimeout(r, 20));
        return pending.splice(0);
      },
      interrupt: () => {
        interrupted = true;
      },
      onReadFailed: () => undefined,
    });
    try {
      await expect.poll(async () => (await findRunJob(queue, runId))?.getState()).toBe("waiting");
      expect(afters[0]).toBe("$");
      await expect.poll(() => afters.includes("1-0")).toBe(true);
    } finally {
      await promoter.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
    expect(interrupted).toBe(true);
  });

  it("watchRemovedRuns reports the run id of a removed job", async () => {
    const keyPrefix = uniquePrefix("removed");
    const { queue, runId } = await parkedJob(keyPrefix);
    const removed: string[] = [];
    const watch = watchRemovedRuns(redis, keyPrefix, (id) => removed.push(id));
    try {
      await watch.ready;
      await (await findRunJob(queue, runId))?.remove();
      await expect.poll(() => removed).toEqual([runId]);
    } finally {
      await watch.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("events opened after newestAgentEventId see a removal made before their first read", async () => {
    // What keeps watchRemovedRuns' `ready` true: on a busy process the events' first XREAD comes
    // after a removal made right after `ready`, and from `$` that removal would never be seen.
    const keyPrefix = uniquePrefix("removed-before");
    const { queue, runId } = await parkedJob(keyPrefix);
    const lastEventId = await newestAgentEventId(redis, keyPrefix);
    await (await findRunJob(queue, runId))?.remove();
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId });
    const removed: string[] = [];
    events.on("removed", ({ jobId }) => removed.push(jobId));
    try {
      await expect.poll(() => removed).toEqual([runId]);
    } finally {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
