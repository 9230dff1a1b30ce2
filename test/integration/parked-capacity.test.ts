import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { scriptedModelFromYaml, storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, LogNotifier } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { agentQueue, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Parked runs hold no worker slot (docs/DESIGN.md §7): one worker with concurrency 1 parks a
 * thousand runs whose first call needs a person, and a run that needs nobody still goes straight
 * through while every one of the thousand stays delayed.
 */

const PARKED = 1000;
const redis = testRedisClient();
const keyPrefix = uniquePrefix("capacity");
const logger = createLogger({ level: "silent", format: "json" });
const queue = agentQueue(redis, keyPrefix);

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

/** Under the catalog name exec with elevation off: the gate asks a person for every call. */
const execNeverRuns = defineTool({
  name: "exec",
  description: "must not run: nobody approves in this test (test tool)",
  parameters: Type.Object({ command: Type.String() }),
  async execute() {
    throw new Error("exec ran without an approval");
  },
});

const reads: string[] = [];
/** Read-only, so the gate allows it at step 5 without asking anybody. */
const recordingRead = defineTool({
  name: "read_file",
  description: "records the path it was asked to read (test tool)",
  parameters: Type.Object({ path: Type.String() }),
  riskLevel: "read_only",
  async execute(args) {
    reads.push(args.path);
    return toolSuccess("contents");
  },
});

const parkingScript = stringify([
  { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
  { content: "deployed" },
]);
const quickScript = stringify([
  { tool_calls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
  { content: "read it" },
]);

async function workerDeps() {
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [execNeverRuns, recordingRead],
    script: parkingScript,
    configOverrides: { permissions: { elevated: { enabled: false } } },
  });
  const store = new ApprovalStore({
    redis,
    keyPrefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: "alice@example.test" }] },
  });
  const notifications = new ApprovalNotifications({
    store,
    notifiers: [new LogNotifier(logger)],
    publicUrl: "http://127.0.0.1:1",
    logger,
  });
  const quick = scriptedModelFromYaml(quickScript, "quick script");
  return {
    store,
    deps: {
      ...deps,
      approvals: storeApprovals({ store, notifications, logger }),
      // The 1,001st run names another model: same worker, a script that needs no approval.
      model: (name: string) => (name === "quick" ? quick : deps.model(name)),
    },
  };
}

describe("parked runs hold no worker slot", () => {
  it("with a thousand runs parked on approvals, a worker of concurrency 1 still runs a new job to completion while all thousand stay delayed", async () => {
    const { deps, store } = await workerDeps();
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    try {
      const parked = Array.from({ length: PARKED }, () => testPayload());
      await Promise.all(parked.map((payload) => enqueueAgentRun(queue, payload)));
      // One slot parks them all in turn: each run gives its slot back as it parks.
      await expect
        .poll(async () => (await queue.getJobCounts("delayed")).delayed, { timeout: 45_000, interval: 250 })
        .toBe(PARKED);
      expect(await redis.zcard(store.keys.pending)).toBe(PARKED);

      const quick = testPayload({}, { model: "quick" });
      await enqueueAgentRun(queue, quick);
      await expect
        .poll(async () => (await findRunJob(queue, quick.runId))?.getState(), {
          timeout: 10_000,
          interval: 20,
        })
        .toBe("completed");

      expect((await findRunJob(queue, quick.runId))?.returnvalue).toMatchObject({
        status: "completed",
        finalAnswer: "read it",
      });
      expect(reads).toEqual(["notes.txt"]);
      const counts = await queue.getJobCounts("delayed", "active", "wait", "completed", "failed");
      expect(counts).toEqual({ delayed: PARKED, active: 0, wait: 0, completed: 1, failed: 0 });
      const delayedIds = (await queue.getDelayed(0, -1)).map((job) => job.id).sort();
      expect(delayedIds).toEqual(parked.map((p) => p.runId).sort());
    } finally {
      await worker.close();
    }
  }, 60_000);
});
