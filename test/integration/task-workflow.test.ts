import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunDeps } from "../../src/agent/index.js";
import { journalKey } from "../../src/journal/index.js";
import {
  type AgentJobPayload,
  type AgentQueue,
  enqueueAgentRun,
  findRunJob,
  openAgentQueueEvents,
} from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { createSubagentTools } from "../../src/tools/index.js";
import { agentQueue, countingWriteTool, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import {
  type FakeChatServer,
  type RecordedRequest,
  reply,
  startFakeChatServer,
} from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

type Msg = { role: string; content?: string | null };

/** What a model request shows: the run's task, how many turns it had, and its tool results. */
function view(request: RecordedRequest) {
  const messages = (request.body as { messages: Msg[] }).messages;
  const task = messages.find((m) => m.role === "user")?.content ?? "";
  const turns = messages.filter((m) => m.role === "assistant").length;
  const tools = messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
  return { task, turns, tools };
}

async function setup(server: FakeChatServer, keyPrefix: string, maxChildren = 10): Promise<RunDeps> {
  const counter = join(await mkdtemp(join(tmpdir(), "echo-tw-")), "c.txt");
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [countingWriteTool(counter), ...createSubagentTools()],
    script: "- content: unused\n",
    env: { FAKE_KEY: "sk-test-000000" },
    configOverrides: {
      models: {
        scripted: { provider: "openai", base_url: server.baseUrl, model: "m", api_key_env: "FAKE_KEY" },
      },
      execution: { network_policy: "allow", in_doubt_policy: "fail", max_children_per_run: maxChildren },
      // task / workflow create are judged like delegate_task (exec-level when the child inherits the
      // parent's tools): auto-approved here, as subagents.test.ts does for delegate_task.
      permissions: {
        elevated: { enabled: false },
        approval: { mode: "off", auto_approve: ["task", "workflow"] },
      },
    },
  });
  return deps;
}

async function harness(
  name: string,
  handler: (
    r: RecordedRequest,
  ) => ReturnType<typeof reply.content> | Promise<ReturnType<typeof reply.content>>,
  concurrency: number,
) {
  const keyPrefix = uniquePrefix(name);
  const server = await startFakeChatServer(handler);
  const deps = await setup(server, keyPrefix);
  const queue = agentQueue(redis, keyPrefix);
  const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
  await events.waitUntilReady();
  const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency, deps });
  const run = async (payload: AgentJobPayload) => {
    await enqueueAgentRun(queue, payload);
    return (await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 30_000)) as {
      finalAnswer: string;
    };
  };
  return {
    keyPrefix,
    queue,
    deps,
    run,
    async close() {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    },
  };
}

const idsIn = (texts: readonly string[], re: RegExp) =>
  texts.flatMap((t) => [...t.matchAll(re)].map((m) => m[1] as string));

async function stateOf(queue: AgentQueue, id: string) {
  return (await findRunJob(queue, id))?.getState() ?? "missing";
}

// Each test waits up to 30 s for a state (and a run up to 30 s): the tests get 120 s, so a wait that
// runs out fails with its own message instead of the test timing out around it.
const WAITS = { timeout: 120_000 };

describe("task", WAITS, () => {
  it("creates queued tasks, updates one that has not started, stops another, reads them; other runs cannot touch them", async () => {
    let ids: string[] = [];
    const h = await harness(
      "task",
      (request) => {
        const { task, turns, tools } = view(request);
        if (task === "parent: tasks") {
          if (turns === 0)
            return reply.toolCalls([
              { name: "task", arguments: { action: "create", task: "child: A" }, id: "a" },
              { name: "task", arguments: { action: "create", task: "child: B", priority: 3 }, id: "b" },
            ]);
          if (turns === 1) {
            ids = idsIn(tools, /created task (child-[0-9a-f]+)/g);
            return reply.toolCalls([
              {
                name: "task",
                arguments: { action: "update", id: ids[1], task: "child: B (updated)" },
                id: "u",
              },
              { name: "task", arguments: { action: "stop", id: ids[0] }, id: "s" },
              { name: "task", arguments: { action: "status", id: ids[1] }, id: "q" },
              { name: "task", arguments: { action: "update", id: ids[1] }, id: "bad" },
            ]);
          }
          return reply.content(tools.join(" | "));
        }
        if (task === "parent: snoop") {
          if (turns === 0)
            return reply.toolCalls([
              { name: "task", arguments: { action: "status", id: ids[1] }, id: "x" },
              { name: "task", arguments: { action: "stop", id: ids[1] }, id: "y" },
            ]);
          return reply.content(tools.join(" | "));
        }
        return reply.content(`ran: ${task}`);
      },
      // One slot: the parent holds it, so its tasks stay queued until it ends.
      1,
    );
    try {
      const parent = testPayload({}, { task: "parent: tasks" });
      const { finalAnswer } = await h.run(parent);
      const [a, b] = ids;
      expect(finalAnswer).toContain(`created task ${b} (priority 3)`);
      expect(finalAnswer).toContain(`updated task ${b}`);
      expect(finalAnswer).toContain(`stopped task ${a}: removed from the queue before it started`);
      expect(finalAnswer).toContain(`task ${b} is pending`);
      expect(finalAnswer).toContain('task or priority is required when action is "update"');
      await expect.poll(() => stateOf(h.queue, b!), { timeout: 20_000 }).toBe("completed");
      const child = await findRunJob(h.queue, b!);
      expect(child?.returnvalue).toMatchObject({ finalAnswer: "ran: child: B (updated)" });
      expect(child?.data).toMatchObject({ parentExecutionId: parent.runId, unattended: false, depth: 1 });
      expect(child?.priority).toBe(3);
      expect(await stateOf(h.queue, a!)).toBe("missing");

      const snoop = await h.run(testPayload({}, { task: "parent: snoop" }));
      expect(snoop.finalAnswer).toBe(
        `Error (denied): task ${b} was not started by this run; a run may only status its own tasks | Error (denied): task ${b} was not started by this run; a run may only stop its own tasks`,
      );
    } finally {
      await h.close();
    }
  });

  it("stop asks a running task to stop, and it fails with RUN_CANCELLED before its next step", async () => {
    let child = "";
    let childTurns = 0;
    const h = await harness(
      "task-stop",
      async (request) => {
        const { task, turns, tools } = view(request);
        if (task === "parent: stop running") {
          if (turns === 0)
            return reply.toolCalls([{ name: "task", arguments: { action: "create", task: "child: long" } }]);
          if (turns === 1) {
            child = idsIn(tools, /created task (child-[0-9a-f]+)/g)[0] ?? "";
            // Stop only once the child is mid-run (it has asked the model at least once).
            const deadline = Date.now() + 15_000;
            while (childTurns === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
            return reply.toolCalls([{ name: "task", arguments: { action: "stop", id: child } }]);
          }
          return reply.content(tools.at(-1) ?? "");
        }
        childTurns++;
        return reply.toolCalls([
          {
            name: "write_file",
            arguments: { path: `step-${childTurns}.txt`, content: "x" },
            id: `w${childTurns}`,
          },
        ]);
      },
      2,
    );
    try {
      const { finalAnswer } = await h.run(testPayload({}, { task: "parent: stop running" }));
      expect(finalAnswer).toBe(`asked task ${child} to stop: it stops before its next step`);
      await expect.poll(() => stateOf(h.queue, child), { timeout: 20_000 }).toBe("failed");
      const job = await findRunJob(h.queue, child);
      expect(job?.failedReason).toContain("RUN_CANCELLED");
      expect(job?.attemptsMade).toBe(1);
    } finally {
      await h.close();
    }
  });
});

describe("workflow", WAITS, () => {
  const steps = [
    { id: "report", task: "step: report", depends_on: ["fetch", "clean"] },
    { id: "fetch", task: "step: fetch" },
    { id: "clean", task: "step: clean", depends_on: ["fetch"] },
  ];

  it("runs a 3-step dependent workflow in dependency order as a flow, passing answers on; a replay starts nothing twice", async () => {
    const started: string[] = [];
    const h = await harness(
      "wf",
      (request) => {
        const { task, turns, tools } = view(request);
        if (task === "parent: workflow") {
          if (turns === 0)
            return reply.toolCalls([{ name: "workflow", arguments: { action: "create", steps } }]);
          return reply.content(tools.join(" | "));
        }
        const name = /^step: (\w+)/.exec(task)?.[1] ?? task;
        if (turns === 0) started.push(name);
        const saw = ["fetch", "clean"].filter((s) => task.includes(`answer of ${s}`));
        return reply.content(`answer of ${name}${saw.length ? ` (saw ${saw.join(", ")})` : ""}`);
      },
      3,
    );
    try {
      const parent = testPayload({}, { task: "parent: workflow" });
      const { finalAnswer } = await h.run(parent);
      const wf =
        /started workflow (wf-[0-9a-f]+); steps in dependency order \(independent branches may run at once\): fetch → clean → report/.exec(
          finalAnswer,
        )?.[1];
      expect(wf).toBeDefined();
      await expect.poll(() => stateOf(h.queue, `${wf}.report`), { timeout: 30_000 }).toBe("completed");
      expect(started).toEqual(["fetch", "clean", "report"]);
      expect((await findRunJob(h.queue, `${wf}.report`))?.returnvalue).toMatchObject({
        finalAnswer: "answer of report (saw fetch, clean)",
      });
      expect((await findRunJob(h.queue, `${wf}.clean`))?.returnvalue).toMatchObject({
        finalAnswer: "answer of clean (saw fetch)",
      });

      // A crash before the call was journalled: the parent runs again from nothing, asks for the same
      // workflow, and nothing new is queued or run.
      await (await findRunJob(h.queue, parent.runId))!.remove();
      await redis.del(journalKey(h.keyPrefix, parent.runId));
      const again = await h.run(parent);
      expect(again.finalAnswer).toContain(`already started workflow ${wf}`);
      const stepJobs = (
        await h.queue.getJobs([
          "completed",
          "waiting",
          "active",
          "waiting-children",
          "prioritized",
          "delayed",
        ])
      ).filter((j) => j.id?.startsWith("wf-"));
      expect(stepJobs).toHaveLength(3);
      expect(started).toEqual(["fetch", "clean", "report"]);
    } finally {
      await h.close();
    }
  });

  it("runs independent branches at once when the dependencies form a tree", async () => {
    const started: string[] = [];
    const h = await harness(
      "wf-tree",
      async (request) => {
        const { task, turns, tools } = view(request);
        if (task === "parent: tree") {
          if (turns === 0)
            return reply.toolCalls([
              {
                name: "workflow",
                arguments: {
                  action: "create",
                  steps: [
                    { id: "left", task: "step: left" },
                    { id: "right", task: "step: right" },
                    { id: "join", task: "step: join", depends_on: ["left", "right"] },
                  ],
                },
              },
            ]);
          return reply.content(tools.join(""));
        }
        const name = /^step: (\w+)/.exec(task)?.[1] ?? task;
        started.push(name);
        if (name === "left") {
          // Answers only once "right" has started too: in a chain it could not have.
          const deadline = Date.now() + 10_000;
          while (!started.includes("right") && Date.now() < deadline)
            await new Promise((r) => setTimeout(r, 25));
          return reply.content(started.includes("right") ? "left ran beside right" : "left ran alone");
        }
        return reply.content(
          `${name} done${task.includes("left ran beside right") ? " after left and right" : ""}`,
        );
      },
      3,
    );
    try {
      const { finalAnswer } = await h.run(testPayload({}, { task: "parent: tree" }));
      const wf = /started workflow (wf-[0-9a-f]+)/.exec(finalAnswer)?.[1];
      await expect.poll(() => stateOf(h.queue, `${wf}.join`), { timeout: 30_000 }).toBe("completed");
      expect((await findRunJob(h.queue, `${wf}.left`))?.returnvalue).toMatchObject({
        finalAnswer: "left ran beside right",
      });
      expect((await findRunJob(h.queue, `${wf}.join`))?.returnvalue).toMatchObject({
        finalAnswer: "join done after left and right",
      });
      expect(started.at(-1)).toBe("join");
    } finally {
      await h.close();
    }
  });

  it("rejects a cycle and an unknown dependency naming the field, and status / stop work on its own queued workflow only", async () => {
    const answers: Record<string, string> = {};
    const h = await harness(
      "wf-bad",
      (request) => {
        const { task, turns, tools } = view(request);
        if (task === "parent: bad specs") {
          if (turns === 0)
            return reply.toolCalls([
              {
                name: "workflow",
                arguments: {
                  action: "create",
                  steps: [
                    { id: "a", task: "x", depends_on: ["b"] },
                    { id: "b", task: "y", depends_on: ["a"] },
                  ],
                },
                id: "cycle",
              },
              {
                name: "workflow",
                arguments: {
                  action: "create",
                  steps: [
                    { id: "a", task: "x" },
                    { id: "b", task: "y", depends_on: ["zz"] },
                  ],
                },
                id: "unknown",
              },
              {
                name: "workflow",
                arguments: { action: "create", steps: [{ id: "bad id!", task: "x" }] },
                id: "pattern",
              },
              { name: "workflow", arguments: { action: "create", steps }, id: "ok" },
            ]);
          if (turns === 1) {
            const wf = idsIn(tools, /started workflow (wf-[0-9a-f]+)/g)[0];
            answers.wf = wf ?? "";
            return reply.toolCalls([
              { name: "workflow", arguments: { action: "status", id: wf }, id: "st" },
              { name: "workflow", arguments: { action: "stop", id: wf }, id: "sp" },
            ]);
          }
          answers.parent = tools.join("\n");
          return reply.content("done");
        }
        if (task === "parent: snoop") {
          if (turns === 0)
            return reply.toolCalls([{ name: "workflow", arguments: { action: "status", id: answers.wf } }]);
          return reply.content(tools.join(""));
        }
        return reply.content(`ran ${task}`);
      },
      1,
    );
    try {
      await h.run(testPayload({}, { task: "parent: bad specs" }));
      const text = answers.parent ?? "";
      expect(text).toContain(
        "Error (validation): steps.0.depends_on: the dependencies form a cycle: a → b → a",
      );
      expect(text).toContain('Error (validation): steps.1.depends_on: unknown step "zz" (steps are: a, b)');
      expect(text).toContain('steps.0.id: must match pattern "^[a-zA-Z0-9_-]{1,40}$"');
      expect(text).toContain(`workflow ${answers.wf}:\nfetch: task ${answers.wf}.fetch is pending`);
      expect(text).toMatch(/stopped workflow wf-[0-9a-f]+: fetch signalled, clean signalled, report removed/);
      // Nothing of the stopped workflow runs after the parent frees the slot.
      const snoop = await h.run(testPayload({}, { task: "parent: snoop" }));
      expect(snoop.finalAnswer).toBe(
        `Error (denied): workflow ${answers.wf} was not started by this run; a run may only status its own workflows`,
      );
      for (const step of ["fetch", "clean", "report"]) {
        expect(await stateOf(h.queue, `${answers.wf}.${step}`)).toBe("missing");
      }
    } finally {
      await h.close();
    }
  });

  it("a stopped step fails when it starts, and the steps after it fail with it instead of waiting", async () => {
    let wf = "";
    const ran: string[] = [];
    const h = await harness(
      "wf-fail",
      (request) => {
        const { task, turns, tools } = view(request);
        if (task === "parent: stop a step") {
          if (turns === 0)
            return reply.toolCalls([
              {
                name: "workflow",
                arguments: {
                  action: "create",
                  steps: [
                    { id: "a", task: "step: a" },
                    { id: "b", task: "step: b", depends_on: ["a"] },
                  ],
                },
              },
            ]);
          if (turns === 1) {
            wf = idsIn(tools, /started workflow (wf-[0-9a-f]+)/g)[0] ?? "";
            return reply.toolCalls([{ name: "task", arguments: { action: "stop", id: `${wf}.a` } }]);
          }
          return reply.content(tools.at(-1) ?? "");
        }
        ran.push(task);
        return reply.content("ran");
      },
      1,
    );
    try {
      const { finalAnswer } = await h.run(testPayload({}, { task: "parent: stop a step" }));
      expect(finalAnswer).toBe(`asked task ${wf}.a to stop: it stops before its next step`);
      await expect.poll(() => stateOf(h.queue, `${wf}.b`), { timeout: 20_000 }).toBe("failed");
      expect((await findRunJob(h.queue, `${wf}.a`))?.failedReason).toContain("RUN_CANCELLED");
      expect(ran).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it("counts every step toward execution.max_children_per_run", async () => {
    const keyPrefix = uniquePrefix("wf-limit");
    let seen = "";
    const server = await startFakeChatServer((request) => {
      const { turns, tools } = view(request);
      if (turns === 0) return reply.toolCalls([{ name: "workflow", arguments: { action: "create", steps } }]);
      seen = tools.join("");
      return reply.content("done");
    });
    const deps = await setup(server, keyPrefix, 2);
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    try {
      const parent = testPayload({}, { task: "parent: too many" });
      await enqueueAgentRun(queue, parent);
      await (await findRunJob(queue, parent.runId))!.waitUntilFinished(events, 20_000);
      expect(seen).toContain(
        "a run may start at most 2 sub-agents (execution.max_children_per_run); this call would start 3 after 0",
      );
      expect((await queue.getJobs(["waiting", "waiting-children", "prioritized"])).length).toBe(0);
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    }
  });
});
