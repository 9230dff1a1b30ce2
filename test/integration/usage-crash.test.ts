import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { Job } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { usageOfRecords } from "../../src/agent/index.js";
import { ApprovalStore } from "../../src/approvals/index.js";
import { Journal } from "../../src/journal/index.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { RunInspector } from "../../src/runs/index.js";
import {
  agentQueue,
  countExecutions,
  crashRunFiles,
  testPayload,
  writeScript,
} from "../helpers/agent-harness.js";
import { REPO_ROOT } from "../helpers/cli-process.js";
import { anthropicReply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { reply } from "../helpers/fake-chat-server.js";
import { testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

const STEPS = 12;

function startWorker(env: Record<string, string>): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(
    process.execPath,
    [resolve(REPO_ROOT, "bin/run-ts.js"), "test/helpers/agent-worker-main.ts"],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  const ready = new Promise<void>((done, fail) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("worker ready")) done();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code) => fail(new Error(`worker exited (${code}) before ready:\n${out}`)));
  });
  return { child, ready };
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGKILL");
  });
}

async function poll<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("usage of a run whose worker is SIGKILLed mid-step", () => {
  it("is counted once per journalled response after the run resumes on a new worker", async () => {
    const keyPrefix = uniquePrefix("usage-crash");
    const { counter, env: files } = await crashRunFiles(writeScript(0));
    // The step is the number of assistant turns in the history; each answer is slow enough that a
    // kill lands while the model call is in flight, and reports 100 input / 10 output tokens.
    const server = await startFakeAnthropicServer((request) => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      const step = messages.filter((m) => m.role === "assistant").length;
      const usage = { input_tokens: 100, output_tokens: 10 };
      const answer =
        step < STEPS
          ? anthropicReply.toolUse(
              [{ id: `toolu_${step}`, name: "write_file", input: { path: `f${step}`, content: `s${step}` } }],
              null,
              usage,
            )
          : anthropicReply.text("survived", "end_turn", usage);
      return reply.delayed(60, answer);
    });
    const env = {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: keyPrefix,
      ...files,
      TOOL_DELAY_MS: "20",
      CLAIM_LEASE_MS: "600",
      LOCK_MS: "600",
      FAKE_KEY: "sk-ant-test",
      CONFIG_JSON: JSON.stringify({
        models: {
          claude: {
            provider: "anthropic",
            base_url: server.baseUrl,
            model: "claude-fake",
            api_key_env: "FAKE_KEY",
            price: { input: 3, output: 15 },
          },
        },
      }),
    };
    const queue = agentQueue(redis, keyPrefix);
    const journal = new Journal({ redis, keyPrefix });
    const payload = testPayload({}, { model: "claude", maxSteps: STEPS + 5 });
    await enqueueAgentRun(queue, payload);
    try {
      // Kill the worker three times, each time while a model request is in flight (the server has
      // received it and not answered yet).
      for (let kills = 0; kills < 3; kills++) {
        const seen = server.requests.length;
        const worker = startWorker(env);
        await worker.ready;
        const reached = await poll(
          async () => server.requests.length,
          (n) => n >= seen + 2,
          30_000,
        );
        expect(reached, "the worker made model requests").toBeGreaterThanOrEqual(seen + 2);
        await kill(worker.child);
      }
      const final = startWorker(env);
      await final.ready;
      try {
        const state = await poll(
          async () => (await Job.fromId(queue, payload.runId))?.getState(),
          (s) => s === "completed" || s === "failed",
          60_000,
        );
        expect(state).toBe("completed");
      } finally {
        await kill(final.child);
      }
      const job = await Job.fromId(queue, payload.runId);
      const snapshot = await journal.readRun(payload.runId);
      const modelRecords = [...snapshot.records.keys()].filter((k) => k.startsWith("model:"));
      expect(modelRecords).toHaveLength(STEPS + 1);
      // Requests answered for a killed worker were never journalled: the server saw more than counted.
      expect(server.requests.length).toBeGreaterThan(STEPS + 1);
      const totals = usageOfRecords(snapshot.records);
      expect(totals).toMatchObject({
        responses: STEPS + 1,
        inputTokens: 100 * (STEPS + 1),
        outputTokens: 10 * (STEPS + 1),
      });
      expect(totals.costUsd).toBeCloseTo(((STEPS + 1) * (100 * 3 + 10 * 15)) / 1_000_000, 9);
      expect(job?.returnvalue).toMatchObject({
        status: "completed",
        finalAnswer: "survived",
        usage: { inputTokens: 100 * (STEPS + 1), outputTokens: 10 * (STEPS + 1) },
      });
      const inspector = new RunInspector({
        redis,
        keyPrefix,
        approvals: new ApprovalStore({ redis, keyPrefix, policy: { waitTimeoutMs: 60_000, approvers: [] } }),
      });
      try {
        expect((await inspector.showRun(payload.runId)).run?.usage).toMatchObject({
          inputTokens: 100 * (STEPS + 1),
          outputTokens: 10 * (STEPS + 1),
        });
      } finally {
        await inspector.close();
      }
      const counts = await countExecutions(counter);
      expect(
        [...counts.values()].filter((n) => n > 1),
        "side effects run twice",
      ).toEqual([]);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    }
  }, 180_000);
});
