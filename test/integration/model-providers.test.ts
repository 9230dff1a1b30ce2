import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ModelResponse, type RunDeps, runAgent } from "../../src/agent/index.js";
import { Journal } from "../../src/journal/index.js";
import { isRunnerError } from "../../src/shared/index.js";
import {
  countExecutions,
  countingWriteTool,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import { anthropicReply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import {
  type FakeChatServer,
  type FakeReply,
  reply,
  startFakeChatServer,
} from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

const PROVIDERS = ["openai", "anthropic"] as const;
type Provider = (typeof PROVIDERS)[number];

/** Replies in each provider's own wire format. */
const wire = {
  openai: {
    write: (i: number): FakeReply =>
      reply.toolCalls([
        { id: `call_${i}`, name: "write_file", arguments: { path: `f${i}`, content: `c${i}` } },
      ]),
    final: (text: string): FakeReply => reply.content(text),
    rateLimited: (retryAfter: string): FakeReply =>
      reply.error(429, "Rate limit reached for requests", { "retry-after": retryAfter }),
    overloaded: (): FakeReply => reply.error(503, "The server is overloaded"),
    cut: (): FakeReply => ({
      kind: "json",
      status: 200,
      body: {
        id: "x",
        object: "chat.completion",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "call_cut",
                  type: "function",
                  function: { name: "write_file", arguments: '{"path": "a", "con' },
                },
              ],
            },
            finish_reason: "length",
          },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      },
    }),
    refusal: (): FakeReply => ({
      kind: "json",
      status: 200,
      body: {
        id: "x",
        object: "chat.completion",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: null, refusal: "I can't help with that." },
            finish_reason: "stop",
          },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      },
    }),
    tooLong: (): FakeReply => ({
      kind: "json",
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      },
    }),
  },
  anthropic: {
    write: (i: number): FakeReply =>
      anthropicReply.toolUse([
        { id: `toolu_${i}`, name: "write_file", input: { path: `f${i}`, content: `c${i}` } },
      ]),
    final: (text: string): FakeReply => anthropicReply.text(text),
    rateLimited: (retryAfter: string): FakeReply =>
      anthropicReply.error(429, "rate_limit_error", "Number of requests has exceeded your rate limit", {
        "retry-after": retryAfter,
      }),
    overloaded: (): FakeReply => anthropicReply.error(529, "overloaded_error", "Overloaded"),
    cut: (): FakeReply => ({
      kind: "json",
      status: 200,
      body: {
        id: "msg_cut",
        type: "message",
        role: "assistant",
        model: "claude-fake",
        content: [{ type: "tool_use", id: "toolu_cut", name: "write_file", input: { path: "a" } }],
        stop_reason: "max_tokens",
        stop_sequence: null,
        usage: { input_tokens: 11, output_tokens: 7 },
      },
    }),
    refusal: (): FakeReply => anthropicReply.text("", "refusal"),
    tooLong: (): FakeReply =>
      anthropicReply.error(
        400,
        "invalid_request_error",
        "prompt is too long: 210000 tokens > 200000 maximum",
      ),
  },
} as const;

function startServer(provider: Provider): Promise<FakeChatServer> {
  return provider === "openai" ? startFakeChatServer() : startFakeAnthropicServer();
}

async function setup(provider: Provider, server: FakeChatServer, agents: Record<string, unknown> = {}) {
  const keyPrefix = uniquePrefix(`prov-${provider}`);
  const counter = join("/tmp", `${keyPrefix.replace(/:/g, "_")}.txt`);
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [countingWriteTool(counter)],
    script: writeScript(0),
    env: { FAKE_KEY: "sk-test-123456" },
    configOverrides: {
      models: {
        m: { provider, base_url: server.baseUrl, model: "fake-model", api_key_env: "FAKE_KEY" },
      },
      agents,
    },
  });
  const notices: { subject: string; text: string }[] = [];
  const tuned: RunDeps = {
    ...deps,
    modelRetry: { baseDelayMs: 20 },
    notifyOwner: async (_payload, notice) => {
      notices.push(notice);
    },
  };
  return { deps: tuned, counter, keyPrefix, notices };
}

async function journalled(keyPrefix: string, runId: string, step: number): Promise<ModelResponse> {
  const record = (await new Journal({ redis, keyPrefix }).readRun(runId)).records.get(`model:${step}`);
  if (record?.status !== "completed") throw new Error(`model:${step} of ${runId} is not completed`);
  return ModelResponse.parse(record.result);
}

describe.each(PROVIDERS)("a run against the local %s-format server", (provider) => {
  const w = wire[provider];

  it("waits out a 429's retry-after, journals the retry with the response, and runs each side effect once", async () => {
    const server = await startServer(provider);
    try {
      server.enqueue(w.rateLimited("1"), w.write(0), w.final("done"));
      const { deps, counter, keyPrefix } = await setup(provider, server);
      const payload = testPayload({}, { model: "m" });
      const started = Date.now();
      const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "done", steps: 2 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(server.requests).toHaveLength(3);
      expect((await journalled(keyPrefix, payload.runId, 0)).retries).toEqual([
        { code: "MODEL_RATE_LIMITED", waitMs: 1000 },
      ]);
      expect([...(await countExecutions(counter)).values()]).toEqual([1]);
      expect(outcome.usage?.retries).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("retries an overloaded provider with backoff and journals both retries", async () => {
    const server = await startServer(provider);
    try {
      server.enqueue(w.overloaded(), w.overloaded(), w.final("done"));
      const { deps, keyPrefix } = await setup(provider, server);
      const payload = testPayload({}, { model: "m" });
      const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      expect(outcome.status).toBe("completed");
      expect((await journalled(keyPrefix, payload.runId, 0)).retries).toEqual([
        { code: "MODEL_OVERLOADED", waitMs: 20 },
        { code: "MODEL_OVERLOADED", waitMs: 40 },
      ]);
    } finally {
      await server.close();
    }
  });

  it("stops with budget_exhausted before the model call that would pass max_output_tokens, and tells the owner", async () => {
    const server = await startServer(provider);
    try {
      server.setHandler((request) => w.write(request.index));
      const { deps, counter, notices } = await setup(provider, server, {
        tester: { model: "m", task: "loop", workspace: "/tmp", max_output_tokens: 20 },
      });
      const payload = testPayload({}, { model: "m" });
      const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      // 7 output tokens per response: 21 >= 20 after the third, so no fourth request is made.
      expect(outcome).toMatchObject({
        status: "budget_exhausted",
        steps: 3,
        budget: { limit: "max_output_tokens", allowed: 20, used: 21 },
        usage: { outputTokens: 21 },
      });
      expect(server.requests).toHaveLength(3);
      expect([...(await countExecutions(counter)).values()]).toEqual([1, 1, 1]);
      expect(notices).toHaveLength(1);
      expect(notices[0]?.text).toContain("max_output_tokens 20 reached (used 21)");
      // Resumed (a retry of the job), it reads the same journal and makes no request.
      const again = await runAgent({ payload, jobId: payload.runId, owner: "w2", deps });
      expect(again).toMatchObject({ status: "budget_exhausted", usage: { outputTokens: 21 } });
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it("ends a response cut at max_tokens as truncated, running none of its tool calls", async () => {
    const server = await startServer(provider);
    try {
      server.enqueue(w.cut());
      const { deps, counter } = await setup(provider, server);
      const payload = testPayload({}, { model: "m" });
      const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      expect(outcome.status).toBe("truncated");
      expect(outcome.finalAnswer).toContain("max_tokens");
      expect((await countExecutions(counter)).size).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("ends a refusal as refused", async () => {
    const server = await startServer(provider);
    try {
      server.enqueue(w.refusal());
      const { deps } = await setup(provider, server);
      const payload = testPayload({}, { model: "m" });
      expect((await runAgent({ payload, jobId: payload.runId, owner: "w1", deps })).status).toBe("refused");
    } finally {
      await server.close();
    }
  });

  it("fails a context-too-long rejection with MODEL_CONTEXT_TOO_LONG at once (not retried)", async () => {
    const server = await startServer(provider);
    try {
      server.enqueue(w.tooLong());
      const { deps } = await setup(provider, server);
      const payload = testPayload({}, { model: "m" });
      const err = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps }).catch(
        (e: unknown) => e,
      );
      expect(isRunnerError(err) && err.code).toBe("MODEL_CONTEXT_TOO_LONG");
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe("malformed tool-call JSON from an OpenAI-format server", () => {
  it("answers the call with a validation error, runs nothing, and the run goes on", async () => {
    const server = await startFakeChatServer();
    try {
      server.enqueue(
        reply.toolCalls([{ id: "call_bad", name: "write_file", arguments: '{"path": "a", content: }' }]),
        reply.content("gave up"),
      );
      const { deps, counter } = await setup("openai", server);
      const payload = testPayload({}, { model: "m" });
      const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "gave up" });
      expect((await countExecutions(counter)).size).toBe(0);
      const second = server.requests[1]?.body as { messages: { role: string; content: string }[] };
      expect(second.messages.at(-1)).toMatchObject({ role: "tool" });
      expect(second.messages.at(-1)?.content).toMatch(/validation/i);
    } finally {
      await server.close();
    }
  });
});
