import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, LogNotifier } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createLogger } from "../../src/logging/index.js";
import { type AgentJobPayload, enqueueAgentRun, findRunJob } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { createSubagentTools } from "../../src/tools/index.js";
import { agentQueue, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { type RecordedRequest, reply, startFakeChatServer } from "../helpers/fake-chat-server.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * A wake-up that lands while a run is still parking (it decided to wait, but its job is still
 * active, not yet delayed) finds nothing to promote. The run must not sleep until its own timer:
 * the wait is set far beyond the test's timeout, so only the parked run's re-check can finish it.
 * The race is forced with the worker's onRunParked hook, which runs between the decision to park
 * and moveToDelayed: the hook lets the wake-up happen (and fail) before the job is delayed.
 */

const redis = testRedisClient();
const prefixes: string[] = [];
const logger = createLogger({ level: "silent", format: "json" });
/** Far beyond every test's timeout: a run that waits for it fails the test. */
const TEN_MINUTES = 600_000;

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

function prefix(name: string): string {
  const p = uniquePrefix(name);
  prefixes.push(p);
  return p;
}

/** Polls a condition with a deadline (a hook cannot use expect.poll's retries for its control flow). */
async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

type Msg = { role: string; content?: string | null };

/** The parent delegates once; the child answers at once (no tool call), so it ends instantly. */
function delegatingModel(request: RecordedRequest) {
  const messages = (request.body as { messages: Msg[] }).messages;
  const task = messages.find((m) => m.role === "user")?.content ?? "";
  const turns = messages.filter((m) => m.role === "assistant").length;
  const lastTool = [...messages].reverse().find((m) => m.role === "tool")?.content ?? "";
  if (task === "child: answer") return reply.content("child says hi");
  return turns === 0
    ? reply.toolCalls([{ name: "delegate_task", arguments: { task: "child: answer" } }])
    : reply.content(`parent got: ${lastTool}`);
}

describe("a wake-up that lands while the run is still parking is not lost", () => {
  it("delegate_task: the child ends before the parent's job is delayed, and the parent still finishes at once", async () => {
    const keyPrefix = prefix("race-child");
    const server = await startFakeChatServer(delegatingModel);
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: createSubagentTools(),
      script: "- content: unused\n",
      env: { FAKE_KEY: "sk-test-000000" },
      configOverrides: {
        models: {
          scripted: { provider: "openai", base_url: server.baseUrl, model: "m", api_key_env: "FAKE_KEY" },
        },
        permissions: { approval: { mode: "off", auto_approve: ["delegate_task"] } },
      },
    });
    const queue = agentQueue(redis, keyPrefix);
    const parent = testPayload({}, { task: "parent: delegate" });
    const parks: string[] = [];
    // Read in the hook, checked after: the worker only logs what a hook throws.
    let childOf: unknown;
    let parentAtPark: unknown;
    const worker = startAgentWorker({
      connection: redis,
      keyPrefix,
      concurrency: 2,
      deps: { ...deps, childRecheckMs: TEN_MINUTES },
      // The parent has decided to wait for its child; its job is still active. Hold it here until
      // the child has ended (its end is recorded and its wake-up of the parent has found no delayed job).
      onRunParked: async (payload: AgentJobPayload) => {
        parks.push(payload.runId);
        if (payload.runId !== parent.runId || parks.length > 1) return;
        await until(
          "the child to complete",
          async () => (await queue.getJobCounts("completed")).completed === 1,
        );
        childOf = (await queue.getCompleted())[0]?.data.parentExecutionId;
        parentAtPark = await (await findRunJob(queue, parent.runId))?.getState();
      },
    });
    try {
      await enqueueAgentRun(queue, parent);
      await expect
        .poll(async () => (await findRunJob(queue, parent.runId))?.getState(), {
          timeout: 15_000,
          interval: 50,
        })
        .toBe("completed");
      expect((await findRunJob(queue, parent.runId))?.returnvalue).toMatchObject({
        status: "completed",
        finalAnswer: "parent got: child says hi",
      });
      expect(childOf).toBe(parent.runId);
      expect(parentAtPark).toBe("active");
      // Parked once: woken by the child's end, not by a re-check; one child, never a second.
      expect(parks).toEqual([parent.runId]);
      expect(await queue.getJobCounts("completed", "failed", "delayed")).toEqual({
        completed: 2,
        failed: 0,
        delayed: 0,
      });
    } finally {
      await worker.close();
      await queue.close();
      await server.close();
    }
  }, 30_000);

  it("approval: the decision and the promoter's wake-up land before the run's job is delayed, and the run still resumes at once", async () => {
    const keyPrefix = prefix("race-approval");
    const runs: string[] = [];
    const exec = defineTool({
      name: "exec",
      description: "records that it ran (test tool)",
      parameters: Type.Object({ command: Type.String() }),
      async execute(args) {
        runs.push(args.command);
        return toolSuccess("deployed");
      },
    });
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [exec],
      script: stringify([
        { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
        { content: "done" },
      ]),
      // Elevation off: the gate asks a person for exec.
      configOverrides: { permissions: { elevated: { enabled: false } } },
    });
    // An hour to decide: a run that sleeps until its request's deadline fails the test.
    const store = new ApprovalStore({
      redis,
      keyPrefix,
      policy: {
        waitTimeoutMs: 3_600_000,
        approvers: [
          { id: "alice", email: "alice@example.test" },
          { id: "ann", email: null },
        ],
      },
    });
    const notifications = new ApprovalNotifications({
      store,
      notifiers: [new LogNotifier(logger)],
      publicUrl: "http://127.0.0.1:9",
      logger,
    });
    const queue = agentQueue(redis, keyPrefix);
    const payload = testPayload();
    let parks = 0;
    // Read in the hook, checked after: the worker only logs what a hook throws.
    let lostWake: unknown;
    let decidedOutcome: unknown;
    const worker = startAgentWorker({
      connection: redis,
      keyPrefix,
      concurrency: 1,
      deps: { ...deps, approvals: storeApprovals({ store, notifications, logger }) },
      // The run has registered its request and decided to park; its job is still active. A person
      // approves now, and the promoter's wake-up (what workers/parts.ts does on the decision event)
      // finds no delayed job.
      onRunParked: async () => {
        if (++parks > 1) return;
        const [request] = await store.list({ status: "pending" });
        const decided = await store.decide({
          id: request!.id,
          actor: { kind: "operator", id: "ann", via: "cli" },
          decision: "approve",
        });
        decidedOutcome = decided.outcome;
        lostWake = await (await findRunJob(queue, payload.runId))?.promote().then(
          () => "promoted",
          (err: unknown) => err,
        );
      },
    });
    try {
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), {
          timeout: 15_000,
          interval: 50,
        })
        .toBe("completed");
      // The promoter's wake-up really was lost: the job was not delayed yet.
      expect(decidedOutcome).toBe("decided");
      expect(lostWake).toBeInstanceOf(Error);
      expect((await findRunJob(queue, payload.runId))?.returnvalue).toMatchObject({
        status: "completed",
        finalAnswer: "done",
      });
      expect(runs).toEqual(["make deploy"]);
      expect(parks).toBe(1);
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 30_000);
});
