import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ParkSignal, runAgent, sessionTranscript, storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, LogNotifier } from "../../src/approvals/index.js";
import { journalKey } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import type { AgentJobPayload } from "../../src/queue/index.js";
import { findRunJob } from "../../src/queue/index.js";
import { createClarifyTool, createSubagentTools } from "../../src/tools/index.js";
import { agentQueue, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * The tools the run loop carries out itself (delegate_task, spawn_task, task, workflow, clarify)
 * under the "Done when" contract: bad arguments are validation results naming the field, policy
 * removes them like any tool, and a replay (the journal lost before the call was recorded) starts
 * no second child.
 */
const redis = testRedisClient();
afterAll(() => redis.disconnect());

async function runScript(turns: unknown[], payloadOverrides: Partial<AgentJobPayload> = {}, agent = {}) {
  const keyPrefix = uniquePrefix("loop-tools");
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [...createSubagentTools(), createClarifyTool()],
    script: stringify(turns),
    // Sub-agent starts are exec-risk; the gate would otherwise ask a person (tested elsewhere).
    configOverrides: {
      permissions: {
        elevated: { enabled: false },
        approval: { mode: "off", auto_approve: ["delegate_task", "spawn_task", "task", "workflow"] },
      },
    },
  });
  const payload = testPayload(payloadOverrides, agent);
  const run = () => runAgent({ payload, jobId: payload.runId, owner: `w-${Math.random()}`, deps });
  return { deps, payload, run, keyPrefix };
}

const toolTexts = async (deps: Awaited<ReturnType<typeof runScript>>["deps"], payload: AgentJobPayload) =>
  (await sessionTranscript(deps.journal, payload))
    .filter((e) => e.role === "tool")
    .map((e) => `${e.tool}: ${e.text}`);

describe("run-loop tools: the tool contract", () => {
  it("answers bad arguments with a validation result naming the field", async () => {
    const { deps, payload, run } = await runScript([
      {
        tool_calls: [
          { name: "delegate_task", arguments: {} },
          { name: "spawn_task", arguments: { task: "x", priority: 1 } },
          { name: "task", arguments: { action: "explode" } },
          { name: "task", arguments: { action: "status" } },
          { name: "task", arguments: { action: "create" } },
          { name: "workflow", arguments: { action: "create" } },
          { name: "workflow", arguments: { action: "stop" } },
          { name: "clarify", arguments: {} },
        ],
      },
      { content: "done" },
    ]);
    expect(await run()).toMatchObject({ status: "completed" });
    const texts = await toolTexts(deps, payload);
    expect(texts).toHaveLength(8);
    for (const text of texts) expect(text).toContain("error (validation)");
    expect(texts[0]).toContain("task: is required");
    expect(texts[1]).toContain("priority");
    expect(texts[2]).toContain("action: must be one of");
    expect(texts[3]).toContain('id is required when action is "status"');
    expect(texts[4]).toContain('task is required when action is "create"');
    expect(texts[5]).toContain('steps is required when action is "create"');
    expect(texts[6]).toContain('id is required when action is "stop"');
    expect(texts[7]).toContain("question: is required");
  });

  it("is removed by policy like any tool (a job subset without them)", async () => {
    const calls = [
      { name: "delegate_task", arguments: { task: "x" } },
      { name: "spawn_task", arguments: { task: "x" } },
      { name: "task", arguments: { action: "create", task: "x" } },
      { name: "workflow", arguments: { action: "create", steps: [{ id: "a", task: "x" }] } },
      { name: "clarify", arguments: { question: "?" } },
    ];
    const { deps, payload, run, keyPrefix } = await runScript(
      [{ tool_calls: calls }, { content: "done" }],
      {},
      {
        allowedTools: ["read_file"],
      },
    );
    expect(await run()).toMatchObject({ status: "completed" });
    const texts = await toolTexts(deps, payload);
    expect(texts).toHaveLength(5);
    for (const [i, text] of texts.entries()) {
      expect(text).toContain(`${calls[i]?.name}: error (denied)`);
      expect(text).toContain("job");
    }
    const queue = agentQueue(redis, keyPrefix);
    expect(await queue.getJobCounts("waiting", "waiting-children", "prioritized")).toEqual({
      waiting: 0,
      "waiting-children": 0,
      prioritized: 0,
    });
    await queue.close();
  });

  it.each([
    ["spawn_task", { task: "child work" }],
    ["task", { action: "create", task: "child work", priority: 4 }],
  ])("%s: a replay after the journal was lost queues the same child once", async (name, args) => {
    const { deps, payload, run, keyPrefix } = await runScript([
      { tool_calls: [{ name, arguments: args }] },
      { content: "done" },
    ]);
    await run();
    const first = await toolTexts(deps, payload);
    const id = /(child-[0-9a-f]{32})/.exec(first[0] ?? "")?.[1];
    expect(id).toBeDefined();
    await redis.del(journalKey(keyPrefix, payload.runId));
    await run();
    expect(await toolTexts(deps, payload)).toEqual(first);
    const queue = agentQueue(redis, keyPrefix);
    try {
      const jobs = await queue.getJobs(["waiting", "prioritized"]);
      expect(jobs.map((j) => j.id)).toEqual([id]);
      expect((await findRunJob(queue, id!))?.data).toMatchObject({
        parentExecutionId: payload.runId,
        agent: { task: "child work" },
      });
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("delegate_task: the parent parks while its child runs, and a replay does not start a second child", async () => {
    const { run, keyPrefix } = await runScript([
      { tool_calls: [{ name: "delegate_task", arguments: { task: "child work" } }] },
      { content: "done" },
    ]);
    expect(await run().catch((e) => e)).toBeInstanceOf(ParkSignal);
    expect(await run().catch((e) => e)).toBeInstanceOf(ParkSignal);
    const queue = agentQueue(redis, keyPrefix);
    try {
      expect((await queue.getJobs(["waiting"])).map((j) => j.data.agent.task)).toEqual(["child work"]);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("clarify: the question is asked once across replays, and the finished run replays its answer", async () => {
    const { deps, payload, keyPrefix } = await runScript([
      { tool_calls: [{ name: "clarify", arguments: { question: "Which colour?" } }] },
      { content: "done" },
    ]);
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
    const withApprovals = { ...deps, approvals: storeApprovals({ store, notifications, logger }) };
    const run = () =>
      runAgent({ payload, jobId: payload.runId, owner: `w-${Math.random()}`, deps: withApprovals });
    expect(await run().catch((e) => e)).toBeInstanceOf(ParkSignal);
    expect(await run().catch((e) => e)).toBeInstanceOf(ParkSignal);
    const asked = await store.list({});
    expect(asked).toHaveLength(1);
    await store.decide({
      id: asked[0]!.id,
      actor: { kind: "operator", id: "ann", via: "cli" },
      decision: "approve",
      comment: "blue",
    });
    expect(await run()).toMatchObject({ status: "completed" });
    expect(await run()).toMatchObject({ status: "completed" });
    expect(await store.list({})).toHaveLength(1);
    expect(await toolTexts(deps, payload)).toEqual(["clarify: blue"]);
  });
});
