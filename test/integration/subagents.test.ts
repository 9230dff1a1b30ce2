import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import type { RunDeps } from "../../src/agent/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { AuditTrail } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { RunnerMetrics } from "../../src/metrics/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { createSubagentTools } from "../../src/tools/index.js";
import {
  agentQueue,
  countExecutions,
  countingWriteTool,
  testPayload,
  testRunDeps,
} from "../helpers/agent-harness.js";
import {
  type FakeChatServer,
  type RecordedRequest,
  reply,
  startFakeChatServer,
} from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

type Msg = { role: string; content?: string | null; tool_calls?: unknown[] };

/** The model: answers by the run's task (the first user message) and how far the run got. */
function agentModel(request: RecordedRequest) {
  const messages = (request.body as { messages: Msg[] }).messages;
  const task = messages.find((m) => m.role === "user")?.content ?? "";
  const turns = messages.filter((m) => m.role === "assistant").length;
  const lastTool = [...messages].reverse().find((m) => m.role === "tool")?.content ?? "";
  const script: Record<string, () => ReturnType<typeof reply.content>> = {
    "parent: delegate": () =>
      turns === 0
        ? reply.toolCalls([
            { name: "delegate_task", arguments: { task: "child: write", allowed_tools: ["write_file"] } },
          ])
        : reply.content(`parent got: ${lastTool}`),
    "child: write": () =>
      turns === 0
        ? reply.toolCalls([{ name: "write_file", arguments: { path: "c.txt", content: "from child" } }])
        : reply.content("child says hi"),
    "parent: dangerous child": () =>
      turns === 0
        ? reply.toolCalls([{ name: "delegate_task", arguments: { task: "child: dangerous" } }])
        : reply.content(`parent got: ${lastTool}`),
    "child: dangerous": () =>
      turns === 0
        ? reply.toolCalls([
            { name: "cronjob", arguments: { action: "create" }, id: "c1" },
            { name: "exec", arguments: { command: "make deploy" }, id: "c2" },
          ])
        : reply.content(
            `child saw: ${messages
              .filter((m) => m.role === "tool")
              .map((m) => m.content)
              .join(" | ")}`,
          ),
    "parent: greedy": () =>
      turns === 0
        ? reply.toolCalls([
            { name: "delegate_task", arguments: { task: "child: write", allowed_tools: ["exec"] } },
          ])
        : reply.content(`parent got: ${lastTool}`),
    "parent: spawn": () =>
      turns === 0
        ? reply.toolCalls([
            { name: "spawn_task", arguments: { task: "child: write", allowed_tools: ["write_file"] } },
          ])
        : reply.content(`spawned: ${lastTool}`),
  };
  const answer = script[task];
  return answer ? answer() : reply.error(400, `unknown task ${task}`);
}

const dangerousCronjob = defineTool({
  name: "cronjob",
  description: "test cronjob",
  parameters: Type.Object({ action: Type.String() }),
  execute: async () => toolSuccess("scheduled"),
});
const markerExec = defineTool({
  name: "exec",
  description: "test exec",
  parameters: Type.Object({ command: Type.String() }),
  execute: async () => toolSuccess("ran"),
});

async function setup(
  server: FakeChatServer,
  keyPrefix: string,
  counter: string,
  unattendedPolicy: "deny" | "allow_safe" = "deny",
): Promise<RunDeps> {
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [countingWriteTool(counter), dangerousCronjob, markerExec, ...createSubagentTools()],
    script: "- content: unused\n",
    env: { FAKE_KEY: "sk-test-000000" },
    configOverrides: {
      models: {
        scripted: { provider: "openai", base_url: server.baseUrl, model: "m", api_key_env: "FAKE_KEY" },
      },
      permissions: {
        elevated: { enabled: false },
        approval: {
          mode: "off",
          unattended_policy: unattendedPolicy,
          // cronjob is auto-approved to show that nothing lets a dangerous call through; exec is not,
          // so a child's exec goes all the way to step 11, where a child cannot ask anyone.
          auto_approve: ["delegate_task", "spawn_task", "cronjob"],
        },
      },
    },
  });
  return { ...deps, childRecheckMs: 60_000 };
}

describe("sub-agents", () => {
  it("delegate_task parks the parent (no slot held on a concurrency-1 worker), runs the child and returns its answer", async () => {
    const keyPrefix = uniquePrefix("sub");
    const counter = join(await mkdtemp(join(tmpdir(), "echo-sub-")), "c.txt");
    const server = await startFakeChatServer(agentModel);
    const deps = await setup(server, keyPrefix, counter);
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const metrics = new RunnerMetrics({
      redis,
      keyPrefix,
      logger: createLogger({ level: "silent", format: "json" }),
    });
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps, metrics });
    try {
      const parent = testPayload({}, { task: "parent: delegate" });
      await enqueueAgentRun(queue, parent);
      const outcome = await (await findRunJob(queue, parent.runId))!.waitUntilFinished(events, 20_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "parent got: child says hi" });
      expect([...(await countExecutions(counter)).values()]).toEqual([1]);
      const children = (await queue.getJobs(["completed"])).filter(
        (j) => j.data.parentExecutionId === parent.runId,
      );
      expect(children).toHaveLength(1);
      expect(children[0]?.data).toMatchObject({
        unattended: false,
        depth: 1,
        agent: { allowedTools: ["write_file"] },
      });
      expect(children[0]?.id).toMatch(/^child-[0-9a-f]{32}$/);
      // The parent decided its delegate_task before parking and again on the replay that read the
      // child's answer: the audit trail holds one decision, labelled with the tool, and one execution.
      const trail = await new AuditTrail({ redis, keyPrefix }).readByTrace(parent.traceId);
      const delegations = trail.filter(
        (e) =>
          e.entry.kind !== "operator" && e.entry.tool === "delegate_task" && e.entry.runId === parent.runId,
      );
      expect(delegations.map((e) => e.entry.kind)).toEqual(["decision", "execution"]);
      const decided = delegations[0]!.entry;
      expect(decided.kind === "decision" && decided.reason).not.toMatch(/^exec call/);
      expect(delegations[1]!.entry).toMatchObject({ outcome: "success" });
      const counted = await redis.hgetall(metrics.keys.counter("tool_calls"));
      const delegateCounts = Object.entries(counted).filter(([field]) =>
        field.startsWith('["delegate_task"'),
      );
      expect(delegateCounts.map(([, n]) => Number(n))).toEqual([1]);
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    }
  });

  it("a child's dangerous call is denied even when auto-approved, and its calls that reach step 11 are denied", async () => {
    const keyPrefix = uniquePrefix("sub-danger");
    const counter = join(await mkdtemp(join(tmpdir(), "echo-sub-")), "c.txt");
    const server = await startFakeChatServer(agentModel);
    // The parent's schedule holds a grant (so its delegate_task runs unattended: under allow_safe
    // auto_approve alone never lets an unattended exec-level call through); the child's own grant
    // check says no, so its exec goes past step 4.
    const deps = {
      ...(await setup(server, keyPrefix, counter, "allow_safe")),
      cronAuthorized: async (p: { parentExecutionId: string | null }) => p.parentExecutionId === null,
    };
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 2, deps });
    try {
      // An unattended parent allowed to delegate: its child is unattended too, and nothing lets the
      // child's dangerous call or a call needing a person through.
      const parent = testPayload(
        { unattended: true, origin: { kind: "schedule", scheduleId: "nightly" }, channel: "cron" },
        { task: "parent: dangerous child" },
      );
      await enqueueAgentRun(queue, parent);
      const outcome = await (await findRunJob(queue, parent.runId))!.waitUntilFinished(events, 20_000);
      expect(outcome.finalAnswer).toContain("dangerous and never runs unattended");
      const trail = await new AuditTrail({ redis, keyPrefix }).readByTrace(parent.traceId);
      const childDecisions = trail
        .map((e) => e.entry)
        .filter(
          (e): e is Extract<typeof e, { kind: "decision" }> =>
            e.kind === "decision" && (e.tool === "cronjob" || e.tool === "exec"),
        );
      expect(childDecisions.map((e) => [e.tool, (e as { verdict: string }).verdict])).toEqual([
        ["cronjob", "deny"],
        ["exec", "deny"],
      ]);
      expect(
        trail.some(
          (e) => e.entry.kind === "execution" && (e.entry.tool === "cronjob" || e.entry.tool === "exec"),
        ),
      ).toBe(false);
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    }
  });

  it("refuses a child more tools than its parent has, and spawn_task returns at once with an id", async () => {
    const keyPrefix = uniquePrefix("sub-greedy");
    const counter = join(await mkdtemp(join(tmpdir(), "echo-sub-")), "c.txt");
    const server = await startFakeChatServer(agentModel);
    const deps = await setup(server, keyPrefix, counter);
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 2, deps });
    try {
      const greedy = testPayload(
        {},
        { task: "parent: greedy", allowedTools: ["delegate_task", "write_file"] },
      );
      await enqueueAgentRun(queue, greedy);
      const refused = await (await findRunJob(queue, greedy.runId))!.waitUntilFinished(events, 20_000);
      expect(refused.finalAnswer).toContain("not allowed here: exec");

      const spawner = testPayload({}, { task: "parent: spawn" });
      await enqueueAgentRun(queue, spawner);
      const spawned = await (await findRunJob(queue, spawner.runId))!.waitUntilFinished(events, 20_000);
      const id = /started task (child-[0-9a-f]+)/.exec(spawned.finalAnswer)?.[1];
      expect(id).toBeDefined();
      await expect
        .poll(async () => (await findRunJob(queue, id!))?.getState(), { timeout: 20_000 })
        .toBe("completed");
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    }
  });
});
