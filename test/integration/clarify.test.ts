import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ParkSignal, runAgent, storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, LogNotifier } from "../../src/approvals/index.js";
import { Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { createClarifyTool } from "../../src/tools/index.js";
import { testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

async function setup(keyPrefix: string) {
  const logger = createLogger({ level: "silent", format: "json" });
  const store = new ApprovalStore({
    redis,
    keyPrefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "ann", email: null }] },
  });
  const notifications = new ApprovalNotifications({
    store,
    notifiers: [new LogNotifier(logger)],
    publicUrl: "http://127.0.0.1:9",
    logger,
  });
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [createClarifyTool()],
    script: stringify([
      { tool_calls: [{ name: "clarify", arguments: { question: "Which colour?" } }] },
      { content: "done" },
    ]),
  });
  return { store, deps: { ...deps, approvals: storeApprovals({ store, notifications, logger }) } };
}

async function clarifyResultOf(keyPrefix: string, runId: string): Promise<unknown> {
  const snapshot = await new Journal({ redis, keyPrefix }).readRun(runId);
  return [...snapshot.records.entries()].find(([key]) => !key.startsWith("model:"))?.[1];
}

describe("clarify", () => {
  it("parks the run with the question and returns the person's answer as the tool result", async () => {
    const keyPrefix = uniquePrefix("clarify");
    const { store, deps } = await setup(keyPrefix);
    const payload = testPayload();
    expect(
      await runAgent({ payload, jobId: payload.runId, owner: "w1", deps }).catch((e) => e),
    ).toBeInstanceOf(ParkSignal);
    const [question] = await store.list({ status: "pending" });
    expect(question).toMatchObject({ tool: "clarify" });
    expect(question?.reason).toContain("Which colour?");
    const decided = await store.decide({
      id: question!.id,
      actor: { kind: "operator", id: "ann", via: "cli" },
      decision: "approve",
      comment: "the blue one",
    });
    expect(decided.outcome).toBe("decided");
    expect(await runAgent({ payload, jobId: payload.runId, owner: "w2", deps })).toMatchObject({
      status: "completed",
    });
    expect(await clarifyResultOf(keyPrefix, payload.runId)).toMatchObject({
      status: "completed",
      result: { success: true, output: "the blue one" },
    });
  });

  it("gives the model a decline, not an error, when the person denies", async () => {
    const keyPrefix = uniquePrefix("clarify-deny");
    const { store, deps } = await setup(keyPrefix);
    const payload = testPayload();
    await runAgent({ payload, jobId: payload.runId, owner: "w1", deps }).catch(() => undefined);
    const [question] = await store.list({ status: "pending" });
    await store.decide({
      id: question!.id,
      actor: { kind: "operator", id: "ann", via: "cli" },
      decision: "deny",
    });
    await runAgent({ payload, jobId: payload.runId, owner: "w2", deps });
    const record = (await clarifyResultOf(keyPrefix, payload.runId)) as { result: { output: string } };
    expect(record.result.output).toContain("declined");
  });

  it("is refused in a child run, which nobody watches", async () => {
    const keyPrefix = uniquePrefix("clarify-child");
    const { deps } = await setup(keyPrefix);
    const payload = testPayload({ parentExecutionId: "parent-1", depth: 1 });
    expect(await runAgent({ payload, jobId: payload.runId, owner: "w1", deps })).toMatchObject({
      status: "completed",
    });
    expect(await clarifyResultOf(keyPrefix, payload.runId)).toMatchObject({
      result: { success: false, errorKind: "denied" },
    });
  });
});
