import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { AuditTrail, auditKeys, Journal } from "../../src/journal/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import {
  agentQueue,
  countExecutions,
  countingWriteTool,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import { reply, startFakeChatServer } from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

describe("a durable agent run on BullMQ", () => {
  it("completes a 20-step scripted run, each side effect once, with a verifiable audit trail", async () => {
    const keyPrefix = uniquePrefix("agent");
    const counter = join("/tmp", `${keyPrefix.replace(/:/g, "_")}.txt`);
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [countingWriteTool(counter)],
      script: writeScript(20),
    });
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      const job = await findRunJob(queue, payload.runId);
      const outcome = await job!.waitUntilFinished(events, 30_000);
      expect(outcome).toMatchObject({
        status: "completed",
        finalAnswer: "all done",
        steps: 21,
        toolCalls: 20,
      });
      const counts = await countExecutions(counter);
      expect(counts.size).toBe(20);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const trail = new AuditTrail({ redis, keyPrefix });
      const entries = await trail.readByTrace(payload.traceId);
      expect(entries.filter((e) => e.entry.kind === "decision")).toHaveLength(20);
      expect(entries.filter((e) => e.entry.kind === "execution")).toHaveLength(20);
      expect((await trail.verify()).ok).toBe(true);
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("starts a side effect only with its allow decision on record, and a refused trail keeps both entries for the next attempt", async () => {
    // The decision is stored in the journal with the call's claim: the tool starts only once that
    // write answered. The audit trail hears of it afterwards; if the trail refuses, the run does not
    // end as done: it fails with both entries still in its journal, and the next attempt delivers them.
    const keyPrefix = uniquePrefix("audit-first");
    const counter = join("/tmp", `${keyPrefix.replace(/:/g, "_")}.txt`);
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [countingWriteTool(counter)],
      script: writeScript(1),
    });
    // A chain head of the wrong type: every append fails with WRONGTYPE (Redis answers, and says no).
    await redis.set(auditKeys(keyPrefix).head, "not a hash");
    const payload = testPayload();
    await expect(runAgent({ payload, jobId: payload.runId, owner: "w1", deps })).rejects.toThrow(/WRONGTYPE/);
    const counts = await countExecutions(counter);
    expect(counts.size).toBe(1);
    const [key] = [...counts.keys()];
    const journal = new Journal({ redis, keyPrefix });
    const left = await journal.readRun(payload.runId);
    expect(left.claimOutbox.has(key!)).toBe(true);
    expect(left.outbox.has(key!)).toBe(true);
    // The trail is repaired; the next attempt replays the call and delivers both entries, once each.
    await redis.del(auditKeys(keyPrefix).head);
    await runAgent({ payload, jobId: payload.runId, owner: "w2", deps });
    expect([...(await countExecutions(counter)).values()]).toEqual([1]);
    const entries = await new AuditTrail({ redis, keyPrefix }).readByTrace(payload.traceId);
    const ofCall = entries.filter((e) => e.entry.kind !== "operator" && e.entry.idempotencyKey === key);
    expect(ofCall.map((e) => e.entry.kind)).toEqual(["decision", "execution"]);
    const done = await journal.readRun(payload.runId);
    expect([done.claimOutbox.size, done.outbox.size]).toEqual([0, 0]);
  });

  it("replays a finished run from its journal without executing anything again", async () => {
    const keyPrefix = uniquePrefix("replay");
    const counter = join("/tmp", `${keyPrefix.replace(/:/g, "_")}.txt`);
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [countingWriteTool(counter)],
      script: writeScript(5, "five"),
    });
    const payload = testPayload();
    const first = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
    const second = await runAgent({ payload, jobId: payload.runId, owner: "w2", deps });
    expect(second).toEqual(first);
    const counts = await countExecutions(counter);
    expect([...counts.values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it("replays model responses from the journal, so a model that answers differently cannot change a replay", async () => {
    const keyPrefix = uniquePrefix("model-replay");
    const counter = join("/tmp", `${keyPrefix.replace(/:/g, "_")}.txt`);
    const server = await startFakeChatServer((request) =>
      request.index === 0
        ? reply.toolCalls([{ name: "write_file", arguments: { path: "a", content: `req-${request.index}` } }])
        : reply.content(`answer-${request.index}`),
    );
    try {
      const { deps } = await testRunDeps({
        redis,
        keyPrefix,
        tools: [countingWriteTool(counter)],
        script: writeScript(1),
        env: { FAKE_KEY: "sk-test-123456" },
        configOverrides: {
          models: {
            scripted: { provider: "openai", base_url: server.baseUrl, model: "m", api_key_env: "FAKE_KEY" },
          },
        },
      });
      const payload = testPayload();
      const first = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      expect(first.finalAnswer).toBe("answer-1");
      expect(server.requests).toHaveLength(2);
      const replay = await runAgent({ payload, jobId: payload.runId, owner: "w2", deps });
      expect(replay).toEqual(first);
      expect(server.requests).toHaveLength(2);
      expect([...(await countExecutions(counter)).values()]).toEqual([1]);
    } finally {
      await server.close();
    }
  });

  it("fails a job with an invalid payload at once, naming the field, without retries", async () => {
    const keyPrefix = uniquePrefix("bad-payload");
    const { deps } = await testRunDeps({ redis, keyPrefix, tools: [], script: writeScript(0) });
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    try {
      const bad = { ...testPayload(), v: 2, unattended: "yes" };
      const job = await queue.add("run", bad, { jobId: "bad-1", attempts: 5 });
      await expect(job.waitUntilFinished(events, 10_000)).rejects.toThrow(
        /PAYLOAD_INVALID|invalid agent job payload/,
      );
      const failed = await findRunJob(queue, "bad-1");
      expect(failed?.attemptsMade).toBe(1);
      expect(failed?.failedReason).toContain("unattended");
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("refuses to enqueue an invalid payload", async () => {
    const queue = agentQueue(redis, uniquePrefix("enqueue"));
    await expect(enqueueAgentRun(queue, { ...testPayload(), maxSteps: 3 } as never)).rejects.toMatchObject({
      code: "PAYLOAD_INVALID",
    });
    await queue.close();
  });
});

describe("credentials", () => {
  it("are injected into the configured tool's context at execution time and never reach the journal", async () => {
    const keyPrefix = uniquePrefix("creds");
    let seen = "";
    const tool = defineTool({
      name: "write_file",
      description: "echoes its credential (test tool)",
      parameters: Type.Object({ path: Type.String(), content: Type.String() }),
      async execute(_args, ctx) {
        seen = ctx.credentials.TOKEN ?? "";
        return toolSuccess(`token is ${seen}`);
      },
    });
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [tool],
      script: writeScript(1),
      env: { TEST_TOKEN: "sk-secret-value-123" },
      configOverrides: { tools: { credentials: { write_file: { TOKEN: "TEST_TOKEN" } } } },
    });
    const payload = testPayload();
    await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
    expect(seen).toBe("sk-secret-value-123");
    const snapshot = await new Journal({ redis, keyPrefix }).readRun(payload.runId);
    const stored = JSON.stringify([...snapshot.records.values()]);
    expect(stored).not.toContain("sk-secret-value-123");
    expect(stored).toContain("token is [redacted]");
    expect(JSON.stringify(payload)).not.toContain("sk-secret");
  });
});
