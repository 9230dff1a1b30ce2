import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeChatServer, reply, startFakeChatServer } from "../../../test/helpers/fake-chat-server.js";
import { isRunnerError, RunnerError } from "../../shared/index.js";
import type { ChatMessage, ModelRequest } from "./model-client.js";
import { shouldRetryModelError } from "./model-errors.js";
import { createOpenAiClient } from "./openai-client.js";

let server: FakeChatServer;
const servers: FakeChatServer[] = [];

beforeEach(async () => {
  server = await startFakeChatServer();
  servers.push(server);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const request: ModelRequest = {
  messages: [
    { role: "system", content: "You are careful." },
    { role: "user", content: "Write a file." },
  ],
  tools: [
    {
      name: "write_file",
      description: "Writes a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ],
};

function client(extra: { timeoutMs?: number; apiKey?: string } = {}) {
  return createOpenAiClient({
    baseUrl: server.baseUrl,
    model: "test-model",
    apiKey: "sk-secret-123",
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

describe("the OpenAI-compatible client", () => {
  it("sends the model, messages, tools and key, and returns the content, finish reason and usage", async () => {
    server.enqueue(reply.content("All done."));
    const response = await client().complete(request);
    expect(response).toEqual({
      message: { content: "All done.", toolCalls: [] },
      finishReason: "stop",
      usage: { promptTokens: 11, completionTokens: 7, totalTokens: 18 },
      // The model that answered, as the server names it (traces show it as gen_ai.response.model).
      model: "fake-model",
    });
    const sent = server.requests[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer sk-secret-123");
    expect(sent.body).toEqual({
      model: "test-model",
      messages: [
        { role: "system", content: "You are careful." },
        { role: "user", content: "Write a file." },
      ],
      tools: [{ type: "function", function: request.tools[0] }],
    });
  });

  it("parses tool calls: JSON objects become objects, unparseable text stays raw, empty text is {}", async () => {
    server.enqueue(
      reply.toolCalls([
        { id: "c1", name: "write_file", arguments: { path: "a.txt" } },
        { id: "c2", name: "write_file", arguments: '{"path": "b.txt"' },
        { id: "c3", name: "list", arguments: "" },
        { id: "c4", name: "list", arguments: "[1,2]" },
      ]),
    );
    const response = await client().complete(request);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.message.toolCalls).toEqual([
      { id: "c1", name: "write_file", arguments: { path: "a.txt" } },
      { id: "c2", name: "write_file", arguments: '{"path": "b.txt"' },
      { id: "c3", name: "list", arguments: {} },
      { id: "c4", name: "list", arguments: "[1,2]" },
    ]);
  });

  it("sends earlier tool calls and tool results back in the wire format", async () => {
    server.enqueue(reply.content("ok"));
    const history: ChatMessage[] = [
      ...request.messages,
      {
        role: "assistant",
        content: null,
        toolCalls: [
          { id: "c1", name: "write_file", arguments: { path: "a" } },
          { id: "c2", name: "write_file", arguments: "{bad" },
        ],
      },
      { role: "tool", toolCallId: "c1", content: "written" },
    ];
    await client({ apiKey: undefined }).complete({ messages: history, tools: [] });
    const sent = server.requests[0]!;
    expect(sent.headers.authorization).toBeUndefined();
    expect((sent.body as { tools?: unknown }).tools).toBeUndefined();
    expect((sent.body as { messages: unknown[] }).messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "write_file", arguments: '{"path":"a"}' } },
          { id: "c2", type: "function", function: { name: "write_file", arguments: "{bad" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "written" },
    ]);
  });

  it("gets a different answer on each request from a server scripted per request", async () => {
    server.setHandler((req) => reply.content(`answer ${req.index}`));
    const c = client();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await c.complete(request)).message.content);
    expect(answers).toEqual(["answer 0", "answer 1", "answer 2"]);
  });

  it.each([
    [500, "MODEL_UNAVAILABLE", true],
    [503, "MODEL_OVERLOADED", true],
    [529, "MODEL_OVERLOADED", true],
    [429, "MODEL_RATE_LIMITED", true],
    [408, "MODEL_TIMEOUT", true],
    [401, "MODEL_AUTH_FAILED", false],
    [403, "MODEL_AUTH_FAILED", false],
    [400, "MODEL_REQUEST_REJECTED", false],
    [404, "MODEL_REQUEST_REJECTED", false],
  ])(
    "turns HTTP %i into %s (retryable: %s) with the server's message and no key",
    async (status, code, retry) => {
      server.enqueue(reply.error(status, "the server says no"));
      const err = await failure(client().complete(request));
      expect(err.code).toBe(code);
      expect(err.message).toContain(`HTTP ${status}`);
      expect(err.message).toContain("the server says no");
      expect(err.message).not.toContain("sk-secret-123");
      expect(err.data.status).toBe(status);
      expect(shouldRetryModelError(err)).toBe(retry);
    },
  );

  it("passes the Retry-After of a 429 on as retryAfterMs", async () => {
    server.enqueue(reply.error(429, "slow down", { "retry-after": "2" }));
    expect((await failure(client().complete(request))).data.retryAfterMs).toBe(2000);
  });

  it("gives up after timeoutMs on a server that never answers", async () => {
    server.enqueue(reply.hang());
    const started = performance.now();
    const err = await failure(client({ timeoutMs: 200 }).complete(request));
    expect(err.code).toBe("MODEL_TIMEOUT");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(shouldRetryModelError(err)).toBe(true);
  });

  it("waits for a slow server within the time limit and gives up on one slower than it", async () => {
    server.enqueue(
      reply.delayed(50, reply.content("slow but fine")),
      reply.delayed(2_000, reply.content("too late")),
    );
    const c = client({ timeoutMs: 500 });
    expect((await c.complete(request)).message.content).toBe("slow but fine");
    expect((await failure(c.complete(request))).code).toBe("MODEL_TIMEOUT");
  });

  it("reports a cancellation by the caller as MODEL_ABORTED, not retryable", async () => {
    server.enqueue(reply.hang());
    const controller = new AbortController();
    const pending = client().complete({ ...request, signal: controller.signal });
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort();
    const err = await failure(pending);
    expect(err.code).toBe("MODEL_ABORTED");
    expect(shouldRetryModelError(err)).toBe(false);
  });

  it("reports a dropped connection and a closed port as MODEL_UNAVAILABLE", async () => {
    server.enqueue(reply.destroy());
    expect((await failure(client().complete(request))).code).toBe("MODEL_UNAVAILABLE");
    const closed = await startFakeChatServer();
    await closed.close();
    const err = await failure(createOpenAiClient({ baseUrl: closed.baseUrl, model: "m" }).complete(request));
    expect(err.code).toBe("MODEL_UNAVAILABLE");
    expect(err.message).toContain("ECONNREFUSED");
  });

  it("reports a connection cut in the middle of the body as MODEL_UNAVAILABLE, not as a short answer", async () => {
    const cut = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"choices":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => cut.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = cut.address() as AddressInfo;
      const err = await failure(
        createOpenAiClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m" }).complete(request),
      );
      expect(err.code).toBe("MODEL_UNAVAILABLE");
      expect(shouldRetryModelError(err)).toBe(true);
    } finally {
      cut.closeAllConnections();
      await new Promise((resolve) => cut.close(resolve));
    }
  });

  it("keeps one connection for requests one after another (keep-alive)", async () => {
    const peers = new Set<number>();
    const counting = createServer((req, res) => {
      peers.add(req.socket.remotePort ?? 0);
      const text = JSON.stringify({ choices: [{ message: { content: "ok" }, finish_reason: "stop" }] });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    });
    await new Promise<void>((resolve) => counting.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = counting.address() as AddressInfo;
      const c = createOpenAiClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m" });
      for (let i = 0; i < 5; i++) expect((await c.complete(request)).message.content).toBe("ok");
      expect(peers.size).toBe(1);
    } finally {
      counting.closeAllConnections();
      await new Promise((resolve) => counting.close(resolve));
    }
  });

  it.each([
    ["a body that is not JSON", reply.text(200, "<html>proxy error</html>"), "not JSON"],
    ["no choices", reply.json(200, { choices: [] }), "choices"],
    [
      "a tool call without a name",
      reply.json(200, { choices: [{ message: { tool_calls: [{ function: {} }] } }] }),
      "name",
    ],
  ])("rejects a 200 with %s as MODEL_RESPONSE_INVALID", async (_label, answer, mention) => {
    server.enqueue(answer);
    const err = await failure(client().complete(request));
    expect(err.code).toBe("MODEL_RESPONSE_INVALID");
    expect(err.message).toContain(mention);
  });

  it("maps a missing finish reason to unknown and a missing usage to null", async () => {
    server.enqueue(reply.json(200, { choices: [{ message: { content: "hi" } }] }));
    expect(await client().complete(request)).toEqual({
      message: { content: "hi", toolCalls: [] },
      finishReason: "unknown",
      usage: null,
    });
  });

  it.each([
    ["a relative base URL", { baseUrl: "/v1", model: "m" }, "baseUrl"],
    ["a non-http base URL", { baseUrl: "ftp://example.com/v1", model: "m" }, "baseUrl"],
    ["credentials in the base URL", { baseUrl: "https://u:p@example.com/v1", model: "m" }, "baseUrl"],
    ["an empty model", { baseUrl: "http://127.0.0.1/v1", model: " " }, "model"],
    ["a zero timeout", { baseUrl: "http://127.0.0.1/v1", model: "m", timeoutMs: 0 }, "timeoutMs"],
  ])("refuses to construct with %s, naming the option", (_label, options, option) => {
    let thrown: unknown;
    try {
      createOpenAiClient(options);
    } catch (err) {
      thrown = err;
    }
    expect(isRunnerError(thrown, "CONFIG_INVALID")).toBe(true);
    expect((thrown as Error).message).toContain(option);
    expect((thrown as Error).message).not.toContain(":p@");
  });
});
