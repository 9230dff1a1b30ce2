import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { redisSpillStore, runAgent } from "../../src/agent/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createReadSpillTool } from "../../src/tools/files/read-spill.js";
import { testPayload, testRunDeps, writeScript } from "../helpers/agent-harness.js";
import { anthropicReply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import {
  type FakeChatServer,
  type FakeReply,
  type RecordedRequest,
  reply,
  startFakeChatServer,
} from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

const STEPS = 200;
const BUDGET = 8000;

/** The file the test tool returns: its name on the first line, then ~1,500 characters unique to it. */
function fileText(n: number): string {
  const lines = [`file ${n}`];
  for (let k = 0; lines.join("\n").length < 1500; k++)
    lines.push(`line ${k} of file ${n}: ${"abcdefghij".repeat(3)}`);
  return lines.join("\n");
}

const readFile = defineTool({
  name: "read_file",
  description: "Reads a numbered test file",
  parameters: Type.Object({ path: Type.String() }),
  riskLevel: "read_only",
  async execute(args) {
    return toolSuccess(fileText(Number(args.path.replace(/^f/, ""))));
  },
});

/**
 * Tokens of a request as the test server counts them: 4 bytes of the JSON it received (messages,
 * system prompt and tools) per token — the server's own count, independent of the runner's estimate.
 */
function serverTokens(body: unknown): number {
  const b = body as { messages: unknown; tools?: unknown; system?: unknown };
  const bytes = Buffer.byteLength(JSON.stringify([b.messages, b.tools ?? null, b.system ?? null]), "utf8");
  return Math.ceil(bytes / 4);
}

/** The latest tool result a request carries, in either wire format. */
function latestResult(body: unknown): string | undefined {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.at(-1);
  if (!last) return undefined;
  if (last.role === "tool") return last.content as string;
  if (Array.isArray(last.content)) {
    const results = (last.content as { type: string; content?: unknown }[]).filter(
      (b) => b.type === "tool_result",
    );
    return results.at(-1)?.content as string | undefined;
  }
  return undefined;
}

const POINTER = /\\?"file (\d+)\\?"; read it in full with read_spill \{\\?"id\\?": \\?"([^"\\]+)\\?"\}/;

interface Provider {
  name: "openai" | "anthropic";
  start(handler: (r: RecordedRequest) => FakeReply): Promise<FakeChatServer>;
  call(index: number, name: string, args: Record<string, unknown>): FakeReply;
  final(text: string): FakeReply;
}

const providers: Provider[] = [
  {
    name: "openai",
    start: (h) => startFakeChatServer(h),
    call: (i, name, args) => reply.toolCalls([{ id: `call_${i}`, name, arguments: args }]),
    final: (text) => reply.content(text),
  },
  {
    name: "anthropic",
    start: (h) => startFakeAnthropicServer(h),
    call: (i, name, args) => anthropicReply.toolUse([{ id: `toolu_${i}`, name, input: args }]),
    final: (text) => anthropicReply.text(text),
  },
];

/** The reply with the server's own count of the request as its reported usage. */
function reportUsage(r: FakeReply, provider: Provider["name"], tokens: number): FakeReply {
  if (r.kind !== "json") return r;
  const body = r.body as Record<string, unknown>;
  const usage =
    provider === "openai"
      ? { prompt_tokens: tokens, completion_tokens: 20, total_tokens: tokens + 20 }
      : {
          input_tokens: tokens,
          output_tokens: 20,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        };
  return { ...r, body: { ...body, usage } };
}

describe.each(providers)(
  "a 200-step run against the local $name-format server with context_budget 8000",
  (provider) => {
    it("keeps every request within the budget, sends the latest result whole, and read_spill returns a pruned result in full", async () => {
      const keyPrefix = uniquePrefix(`ctx-${provider.name}`);
      const overBudget: number[] = [];
      const cutLatest: number[] = [];
      let pointed: { file: number; id: string } | undefined;
      let spillAnswer: string | undefined;
      const server = await provider.start((request) => {
        const tokens = serverTokens(request.body);
        if (tokens > BUDGET) overBudget.push(request.index);
        if (
          request.index >= 1 &&
          request.index <= STEPS &&
          latestResult(request.body) !== fileText(request.index - 1)
        ) {
          cutLatest.push(request.index);
        }
        let answer: FakeReply;
        if (request.index < STEPS)
          answer = provider.call(request.index, "read_file", { path: `f${request.index}` });
        else if (request.index === STEPS) {
          const match = POINTER.exec(JSON.stringify(request.body));
          pointed = match ? { file: Number(match[1]), id: match[2]! } : undefined;
          answer = provider.call(request.index, "read_spill", { id: pointed?.id ?? "missing" });
        } else {
          spillAnswer = latestResult(request.body);
          answer = provider.final("read them all");
        }
        return reportUsage(answer, provider.name, tokens);
      });
      try {
        const { deps } = await testRunDeps({
          redis,
          keyPrefix,
          tools: [readFile, createReadSpillTool({ spill: redisSpillStore(redis, keyPrefix, 3_600_000) })],
          script: writeScript(0),
          env: { FAKE_KEY: "sk-test" },
          configOverrides: {
            models: {
              m: {
                provider: provider.name,
                base_url: server.baseUrl,
                model: "fake",
                api_key_env: "FAKE_KEY",
              },
            },
            agents: { tester: { model: "m", task: "read", workspace: "/tmp", context_budget: BUDGET } },
          },
        });
        const payload = testPayload({}, { model: "m", maxSteps: STEPS + 5 });
        const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
        expect(outcome).toMatchObject({
          status: "completed",
          finalAnswer: "read them all",
          steps: STEPS + 2,
        });
        expect(server.requests).toHaveLength(STEPS + 2);
        expect(overBudget, "requests over the budget (server's count)").toEqual([]);
        expect(cutLatest, "requests whose latest result was not whole").toEqual([]);
        // Without the budget the last requests would carry ~75,000 tokens of results.
        expect(serverTokens(server.requests[STEPS]!.body)).toBeGreaterThan(BUDGET / 2);
        expect(pointed, "a pruned result's pointer in the request").toBeDefined();
        const full = fileText(pointed!.file);
        // The whole text in one page, with read_spill's page footer.
        expect(spillAnswer).toBe(`${full}\n[bytes 0-${full.length} of ${full.length}; end]`);
      } finally {
        await server.close();
      }
    }, 120_000);
  },
);

/**
 * Tools whose schemas are large next to the budget: twelve read-only tools of ~1,800 bytes each
 * (over half the budget by the server's count) that the model never calls. A budget that counted only the messages would
 * send requests the server counts well over it.
 */
const BULKY_NAMES = [
  "list_dir",
  "search_files",
  "knowledge_search",
  "session_search",
  "skills_list",
  "skill_view",
  "web_search",
  "web_fetch",
  "git_status",
  "git_log",
  "git_diff",
  "git_show",
] as const;
const bulkyTools = BULKY_NAMES.map((name, i) =>
  defineTool({
    name,
    description: `Bulky test tool ${i}: ${"a long description of what this tool would do. ".repeat(8)}`,
    parameters: Type.Object(
      Object.fromEntries(
        Array.from({ length: 12 }, (_, k) => [
          `field_${k}`,
          Type.Optional(Type.String({ description: `field ${k} of bulky tool ${i}, described at length` })),
        ]),
      ),
    ),
    riskLevel: "read_only",
    async execute() {
      return toolSuccess("unused");
    },
  }),
);

describe("the context budget counts the tool schemas it sends", () => {
  it("keeps a 40-step run with large tool schemas within the budget by the server's count", async () => {
    const keyPrefix = uniquePrefix("ctx-tools");
    const steps = 40;
    const overBudget: number[] = [];
    let toolsTokens = 0;
    const server = await startFakeChatServer((request) => {
      const tokens = serverTokens(request.body);
      if (tokens > BUDGET) overBudget.push(request.index);
      const b = request.body as { tools?: unknown };
      toolsTokens = Math.ceil(Buffer.byteLength(JSON.stringify(b.tools ?? null), "utf8") / 4);
      // The fake's usage (11 prompt tokens) calibrates nothing: the estimate stays the runner's own.
      return request.index < steps
        ? reply.toolCalls([
            { id: `call_${request.index}`, name: "read_file", arguments: { path: `f${request.index}` } },
          ])
        : reply.content("done");
    });
    try {
      const { deps } = await testRunDeps({
        redis,
        keyPrefix,
        tools: [readFile, ...bulkyTools],
        script: writeScript(0),
        env: { FAKE_KEY: "sk-test" },
        configOverrides: {
          models: {
            m: { provider: "openai", base_url: server.baseUrl, model: "fake", api_key_env: "FAKE_KEY" },
          },
          agents: { tester: { model: "m", task: "read", workspace: "/tmp", context_budget: BUDGET } },
        },
      });
      const payload = testPayload({}, { model: "m", maxSteps: steps + 5 });
      const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "done" });
      expect(toolsTokens, "the tool schemas are a large share of the budget").toBeGreaterThan(BUDGET / 2);
      expect(overBudget, "requests over the budget (server's count, tools included)").toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
