import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, EmailNotifier } from "../../src/approvals/index.js";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { sha256Hex } from "../../src/shared/index.js";
import {
  agentQueue,
  countingWriteTool,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import { freePort } from "../helpers/free-port.js";
import { startParkingWorker } from "../helpers/parking-worker.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

/** A JSON pino logger whose lines a test reads back. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger({
    level: "debug",
    format: "json",
    destination: { write: (l: string) => void lines.push(l) },
  });
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, records };
}

describe("per-run log lines", () => {
  it("carry the trace id, execution id and job id when a run finishes", async () => {
    const keyPrefix = uniquePrefix("logs-done");
    const { logger, records } = capturingLogger();
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [countingWriteTool(join("/tmp", `${keyPrefix.replace(/:/g, "_")}.txt`))],
      script: writeScript(1),
    });
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({
      connection: redis,
      keyPrefix,
      concurrency: 1,
      deps: { ...deps, logger },
    });
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 30_000);
      await expect.poll(() => records().find((r) => r.msg === "run finished")).toBeDefined();
      expect(records().find((r) => r.msg === "run finished")).toMatchObject({
        traceId: payload.traceId,
        executionId: payload.runId,
        jobId: payload.runId,
        status: "completed",
      });
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await deleteKeysWithPrefix(redis, keyPrefix);
    }
  });

  it("carry them when a run parks on an approval, in the worker as `echo-runner worker` wires it", async () => {
    const keyPrefix = uniquePrefix("logs-park");
    const { logger, records } = capturingLogger();
    const worker = await startParkingWorker({
      redis,
      redisUrl: testRedisUrl(),
      keyPrefix,
      publicUrl: "http://127.0.0.1:9",
      concurrency: 1,
      logger,
    });
    const queue = agentQueue(redis, keyPrefix);
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(() => records().find((r) => r.msg === "run parked"), { timeout: 15_000 })
        .toBeDefined();
      expect(records().find((r) => r.msg === "run parked")).toMatchObject({
        traceId: payload.traceId,
        executionId: payload.runId,
        jobId: payload.runId,
      });
    } finally {
      await worker.stop();
      await queue.obliterate({ force: true });
      await queue.close();
      await deleteKeysWithPrefix(redis, keyPrefix);
    }
  });

  it("carry them on a failed approval notification, which is logged through the worker's shared logger", async () => {
    const keyPrefix = uniquePrefix("logs-notify");
    const { logger, records } = capturingLogger();
    const store = new ApprovalStore({
      redis,
      keyPrefix,
      policy: { waitTimeoutMs: 60_000, approvers: [{ id: "alice", email: "alice@example.test" }] },
    });
    // A real SMTP client against a port nobody listens on: every send fails.
    const email = new EmailNotifier({
      host: "127.0.0.1",
      port: await freePort(),
      secure: false,
      user: "",
      from: "r@example.test",
      timeoutMs: 2000,
    });
    const notifications = new ApprovalNotifications({
      store,
      notifiers: [email],
      publicUrl: "http://127.0.0.1:9",
      logger,
      retry: { attempts: 1 },
    });
    try {
      const payload = testPayload();
      const args = { command: "make deploy" };
      await storeApprovals({ store, notifications, logger }).register({
        kind: "approval",
        payload,
        jobId: payload.runId,
        idempotencyKey: "k-1",
        call: { tool: "exec", args, risk: "exec", argsHash: sha256Hex(JSON.stringify(args)) },
        decision: undefined,
        reason: "needs a person",
      });
      expect(records().find((r) => r.msg === "approval notification failed; will retry")).toMatchObject({
        traceId: payload.traceId,
        executionId: payload.runId,
        jobId: payload.runId,
      });
    } finally {
      email.close();
      await deleteKeysWithPrefix(redis, keyPrefix);
    }
  });
});
