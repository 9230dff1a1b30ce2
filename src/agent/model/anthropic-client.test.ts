import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicReply, startFakeAnthropicServer } from "../../../test/helpers/fake-anthropic-server.js";
import type { FakeChatServer } from "../../../test/helpers/fake-chat-server.js";
import { RunnerError } from "../../shared/index.js";
import { createAnthropicClient } from "./anthropic-client.js";
import type { ModelRequest } from "./model-client.js";
import { shouldRetryModelError } from "./model-errors.js";

let server: FakeChatServer;
const servers: FakeChatServer[] = [];

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  servers.push(server);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const tools: ModelRequest["tools"] = [
  {
    name: "write_file",
    description: "Writes a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

const request: ModelRequest = {
  messages: [
    { role: "system", content: "You are careful." },
    { role: "user", content: "Write a file." },
  ],
  tools,
};

function client(extra: { timeoutMs?: number } = {}) {
  return createAnthropicClient({
    baseUrl: server.baseUrl,
    model: "claude-test",
    apiKey: "sk-ant-secret-123",
    maxTokens: 1000,
    ...extra,
  });
}

async function failure(promise: Promise<unknown>): Promise<RunnerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RunnerError)) throw new Error(`expected a RunnerError, got ${String(err)}`);
  return err;
}

describe("the Anthropic Messages client", () => {
  it("sends system, messages, tools, max_tokens and the key header, and maps text, stop reason and usage", async () => {
    server.enqueue(
      anthropicReply.text("All done.", "end_turn", {
        input_tokens: 20,
        output_tokens: 5,
        cache_read_input_tokens: 100,
      }),
    );
    const response = await client().complete(request);
    expect(response).toEqual({
      message: { content: "All done.", toolCalls: [] },
      finishReason: "stop",
      usage: { promptTokens: 120, completionTokens: 5, totalTokens: 125, cachedTokens: 100 },
      // The model that answered, as the server names it (traces show it as gen_ai.response.model).
      model: "claude-fake",
    });
    const sent = server.requests[0]!;
    expect(sent.path).toBe("/v1/messages");
    // SDK 1.x sends the key as a bearer token (0.x sent x-api-key); either reaches the API.
    expect([sent.headers["x-api-key"], sent.headers.authorization]).toContainEqual(
      expect.stringContaining("sk-ant-secret-123"),
    );
    expect(sent.headers["anthropic-version"]).toBeDefined();
    expect(sent.body).toMatchObject({
      model: "claude-test",
      max_tokens: 1000,
      system: "You are careful.",
      messages: [{ role: "user", content: [{ type: "text", text: "Write a file." }] }],
      tools: [{ name: "write_file", description: "Writes a file", input_schema: tools[0]!.parameters }],
    });
  });

  it("maps tool_use blocks to tool calls and sends the results back as one user turn of tool_result blocks", async () => {
    server.enqueue(
      anthropicReply.toolUse(
        [
          { id: "toolu_1", name: "write_file", input: { path: "a" } },
          { id: "toolu_2", name: "write_file", input: { path: "b" } },
        ],
        "Writing two files.",
      ),
      anthropicReply.text("Done."),
    );
    const first = await client().complete(request);
    expect(first.finishReason).toBe("tool_calls");
    expect(first.message).toEqual({
      content: "Writing two files.",
      toolCalls: [
        { id: "toolu_1", name: "write_file", arguments: { path: "a" } },
        { id: "toolu_2", name: "write_file", arguments: { path: "b" } },
      ],
    });
    const second = await client().complete({
      tools,
      messages: [
        ...request.messages,
        { role: "assistant", content: first.message.content, toolCalls: first.message.toolCalls },
        { role: "tool", toolCallId: "toolu_1", content: "wrote a" },
        { role: "tool", toolCallId: "toolu_2", content: "wrote b" },
      ],
    });
    expect(second.message.content).toBe("Done.");
    expect((server.requests[1]!.body as { messages: unknown[] }).messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Writing two files." },
          { type: "tool_use", id: "toolu_1", name: "write_file", input: { path: "a" } },
          { type: "tool_use", id: "toolu_2", name: "write_file", input: { path: "b" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "wrote a" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "wrote b" },
        ],
      },
    ]);
  });

  it.each([
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["refusal", "refusal"],
    ["stop_sequence", "stop"],
    ["pause_turn", "unknown"],
  ])("maps stop_reason %s to finish reason %s", async (stop, finish) => {
    server.enqueue(anthropicReply.text("partial", stop));
    expect((await client().complete(request)).finishReason).toBe(finish);
  });

  it.each([
    [429, "rate_limit_error", "MODEL_RATE_LIMITED", true],
    [529, "overloaded_error", "MODEL_OVERLOADED", true],
    [503, "api_error", "MODEL_OVERLOADED", true],
    [500, "api_error", "MODEL_UNAVAILABLE", true],
    [504, "timeout_error", "MODEL_TIMEOUT", true],
    [401, "authentication_error", "MODEL_AUTH_FAILED", false],
    [403, "permission_error", "MODEL_AUTH_FAILED", false],
    [404, "not_found_error", "MODEL_REQUEST_REJECTED", false],
    [413, "request_too_large", "MODEL_CONTEXT_TOO_LONG", false],
  ])("turns HTTP %i %s into %s (retryable: %s), never leaking the key", async (status, type, code, retry) => {
    server.enqueue(anthropicReply.error(status, type, "the server says no"));
    const err = await failure(client().complete(request));
    expect(err.code).toBe(code);
    expect(err.message).toContain(`HTTP ${status}`);
    expect(err.message).toContain("the server says no");
    expect(err.message).not.toContain("sk-ant-secret-123");
    expect(shouldRetryModelError(err)).toBe(retry);
    // The SDK's own retries are off: one request, whatever the status.
    expect(server.requests).toHaveLength(1);
  });

  it("reads retry-after (seconds) and retry-after-ms of a 429 into retryAfterMs", async () => {
    server.enqueue(
      anthropicReply.error(429, "rate_limit_error", "slow down", { "retry-after": "7" }),
      anthropicReply.error(429, "rate_limit_error", "slow down", { "retry-after-ms": "1500" }),
    );
    expect((await failure(client().complete(request))).data).toMatchObject({
      status: 429,
      retryAfterMs: 7000,
    });
    expect((await failure(client().complete(request))).data).toMatchObject({ retryAfterMs: 1500 });
  });

  it("maps a 400 'prompt is too long' to MODEL_CONTEXT_TOO_LONG", async () => {
    server.enqueue(
      anthropicReply.error(
        400,
        "invalid_request_error",
        "prompt is too long: 210000 tokens > 200000 maximum",
      ),
    );
    expect((await failure(client().complete(request))).code).toBe("MODEL_CONTEXT_TOO_LONG");
  });

  it("maps a request the API finds malformed to MODEL_REQUEST_REJECTED with the API's reason", async () => {
    const err = await failure(
      client().complete({
        tools,
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: null,
            toolCalls: [{ id: "toolu_x", name: "write_file", arguments: {} }],
          },
        ],
      }),
    );
    expect(err.code).toBe("MODEL_REQUEST_REJECTED");
    expect(err.message).toContain("tool_use ids were found without tool_result");
  });

  it("maps a dropped connection to MODEL_UNAVAILABLE and a silent server to MODEL_TIMEOUT", async () => {
    server.enqueue(anthropicReply.destroy());
    expect((await failure(client().complete(request))).code).toBe("MODEL_UNAVAILABLE");
    server.enqueue(anthropicReply.hang());
    expect((await failure(client({ timeoutMs: 200 }).complete(request))).code).toBe("MODEL_TIMEOUT");
  });

  it("maps a caller's cancellation to MODEL_ABORTED", async () => {
    server.enqueue(anthropicReply.hang());
    const controller = new AbortController();
    const pending = client().complete({ ...request, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).code).toBe("MODEL_ABORTED");
  });

  it("refuses to construct with a non-http base URL or an empty model, naming the option", () => {
    expect(() => createAnthropicClient({ baseUrl: "ftp://x", model: "m", apiKey: "k" })).toThrow(/baseUrl/);
    expect(() => createAnthropicClient({ baseUrl: "http://x", model: " ", apiKey: "k" })).toThrow(/model/);
  });
});
