import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { RunInspector } from "../../src/runs/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { isRunnerError } from "../../src/shared/index.js";
import {
  agentQueue,
  countingWriteTool,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import { startParkingWorker } from "../helpers/parking-worker.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

function inspectorFor(keyPrefix: string, store?: ApprovalStore) {
  const approvals =
    store ?? new ApprovalStore({ redis, keyPrefix, policy: { waitTimeoutMs: 60_000, approvers: [] } });
  return new RunInspector({ redis, keyPrefix, approvals, maxChars: 200 });
}

describe("RunInspector", () => {
  it("shows a finished run: transcript, each tool call's journal entry by key, and its gate decisions", async () => {
    const keyPrefix = uniquePrefix("inspect-done");
    const counter = join("/tmp", `${keyPrefix.replace(/:/g, "_")}.txt`);
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [countingWriteTool(counter)],
      script: writeScript(2, "two files written"),
    });
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    const inspector = inspectorFor(keyPrefix);
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 30_000);

      const [row] = await inspector.listRuns({ limit: 10 });
      expect(row).toMatchObject({
        runId: payload.runId,
        state: "completed",
        outcome: "completed",
        detail: "two files written",
        agent: "tester",
        traceId: payload.traceId,
        parkedApprovals: [],
      });
      expect(row!.finished).toBeGreaterThanOrEqual(row!.created);

      const detail = await inspector.showRun(payload.runId);
      expect(detail.transcript.map((s) => s.toolCalls.map((c) => c.name))).toEqual([
        ["write_file"],
        ["write_file"],
        [],
      ]);
      expect(detail.transcript[2]!.content).toBe("two files written");
      const keys = detail.transcript.flatMap((s) => s.toolCalls.map((c) => c.idempotencyKey));
      expect(detail.journal.map((e) => e.key)).toEqual(keys);
      expect(detail.journal.map((e) => [e.tool, e.status, e.result])).toEqual([
        ["write_file", "completed", expect.objectContaining({ success: true })],
        ["write_file", "completed", expect.objectContaining({ success: true })],
      ]);
      const verdicts = detail.decisions.filter((d) => d.kind === "decision");
      expect(verdicts).toHaveLength(2);
      expect(verdicts.map((d) => d.idempotencyKey)).toEqual(keys);
      expect(verdicts.every((d) => d.kind === "decision" && d.verdict === "allow" && d.step >= 1)).toBe(true);
      expect(detail.decisions.filter((d) => d.kind === "execution")).toHaveLength(2);
      expect(detail.notes).toEqual([]);
    } finally {
      await inspector.close();
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await deleteKeysWithPrefix(redis, keyPrefix);
    }
  });

  it("lists a parked run with its pending approval, and shows the ask decision and the request", async () => {
    const keyPrefix = uniquePrefix("inspect-park");
    const worker = await startParkingWorker({
      redis,
      redisUrl: testRedisUrl(),
      keyPrefix,
      publicUrl: "http://127.0.0.1:9",
      concurrency: 1,
    });
    const queue = agentQueue(redis, keyPrefix);
    const inspector = inspectorFor(keyPrefix, worker.store);
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(async () => (await inspector.listRuns({ state: "parked" })).map((r) => r.runId), {
          timeout: 15_000,
        })
        .toEqual([payload.runId]);
      const [row] = await inspector.listRuns({ state: "parked" });
      expect(row).toMatchObject({ state: "delayed", outcome: "parked" });
      expect(row!.parkedApprovals).toEqual([expect.objectContaining({ tool: "exec", risk: "exec" })]);

      const detail = await inspector.showRun(payload.runId);
      expect(detail.approvals).toEqual([
        expect.objectContaining({ tool: "exec", status: "pending", id: row!.parkedApprovals[0]!.id }),
      ]);
      const ask = detail.decisions.find((d) => d.kind === "decision" && d.verdict === "ask");
      expect(ask).toMatchObject({ tool: "exec", step: 11 });
      expect(detail.transcript[0]!.toolCalls[0]).toMatchObject({
        name: "exec",
        arguments: { command: "make deploy" },
        idempotencyKey: detail.approvals[0]!.idempotencyKey,
      });
      expect(await inspector.listRuns({ state: "completed" })).toEqual([]);
    } finally {
      await inspector.close();
      await worker.stop();
      await queue.obliterate({ force: true });
      await queue.close();
      await deleteKeysWithPrefix(redis, keyPrefix);
    }
  });

  it("refuses an unknown run id with RUN_NOT_FOUND, naming the id and how to list runs", async () => {
    const inspector = inspectorFor(uniquePrefix("inspect-none"));
    try {
      const err = await inspector.showRun("no-such-run").catch((e: unknown) => e);
      expect(isRunnerError(err, "RUN_NOT_FOUND")).toBe(true);
      expect((err as Error).message).toContain('"no-such-run"');
      expect((err as Error).message).toContain("jobs list");
    } finally {
      await inspector.close();
    }
  });
});
