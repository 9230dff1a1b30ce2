import { afterAll, describe, expect, it } from "vitest";
import { testPayload } from "../../test/helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { CLOCK_SKEW_MARGIN_MS, startPromoter, type WakeEvent } from "./promoter.js";
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

  it("the promoter wakes the job of every event it reads, from the stored position on, saves it, and stops", async () => {
    const keyPrefix = uniquePrefix("promote");
    const { queue, runId } = await parkedJob(keyPrefix);
    const pending: WakeEvent[] = [{ streamId: "7-0", jobId: runId }];
    const afters: string[] = [];
    const saved: string[] = [];
    let interrupted = false;
    const promoter = startPromoter({
      connection: redis,
      keyPrefix,
      readEvents: async (after) => {
        afters.push(after);
        await new Promise((r) => setTimeout(r, 20));
        return pending.splice(0);
      },
      position: {
        load: async () => "5-0",
        save: async (id) => {
          saved.push(id);
        },
      },
      decidedSince: async () => [],
      interrupt: () => {
        interrupted = true;
      },
      onReadFailed: () => undefined,
    });
    try {
      await expect.poll(async () => (await findRunJob(queue, runId))?.getState()).toBe("waiting");
      expect(afters[0]).toBe("5-0");
      await expect.poll(() => afters.includes("7-0")).toBe(true);
      expect(saved).toEqual(["5-0", "7-0"]);
    } finally {
      await promoter.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
    expect(interrupted).toBe(true);
  });

  it("at start the promoter wakes the parked runs decided since they last started, and only those", async () => {
    const keyPrefix = uniquePrefix("promote-scan");
    const decided = await parkedJob(keyPrefix);
    const queue = decided.queue;
    const other = testPayload();
    await queue.add("run", other, { jobId: other.runId, delay: 3_600_000 });
    const asked: { runId: string; since: number }[] = [];
    let scanned = -1;
    const promoter = startPromoter({
      connection: redis,
      keyPrefix,
      readEvents: async () => {
        await new Promise((r) => setTimeout(r, 20));
        return [];
      },
      position: { load: async () => "0-0", save: async () => undefined },
      decidedSince: async (runs) => {
        asked.push(...runs);
        return runs.filter((r) => r.runId === decided.runId).map((r) => r.runId);
      },
      interrupt: () => undefined,
      onReadFailed: () => undefined,
      onScanned: (woken) => {
        scanned = woken;
      },
    });
    try {
      await expect.poll(() => scanned).toBe(1);
      expect(await (await findRunJob(queue, decided.runId))?.getState()).toBe("waiting");
      expect(await (await findRunJob(queue, other.runId))?.getState()).toBe("delayed");
      // Never started: a decision at any time since the epoch (less the clock margin) is unread.
      expect(asked.map((r) => r.runId).sort()).toEqual([decided.runId, other.runId].sort());
      expect(asked.every((r) => r.since === -CLOCK_SKEW_MARGIN_MS)).toBe(true);
    } finally {
      await promoter.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
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
