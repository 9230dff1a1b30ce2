import { afterAll, describe, expect, it } from "vitest";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { createSessionSearchTool, RedisSessionArchive } from "../../src/tools/index.js";
import { agentQueue, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { type RecordedRequest, reply, startFakeChatServer } from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

type Msg = { role: string; content?: string | null };

describe("the run archive behind session_search", () => {
  it("archives a finished run's transcript under its user; a later run of that user finds it, another user's does not", async () => {
    const keyPrefix = uniquePrefix("archive");
    const server = await startFakeChatServer((request: RecordedRequest) => {
      const messages = (request.body as { messages: Msg[] }).messages;
      const task = messages.find((m) => m.role === "user")?.content ?? "";
      const turns = messages.filter((m) => m.role === "assistant").length;
      if (task === "count the invoices") return reply.content("There are 4711 overdue invoices from Acme.");
      if (turns === 0)
        return reply.toolCalls([{ name: "session_search", arguments: { query: "overdue acme" } }]);
      return reply.content(messages.filter((m) => m.role === "tool").at(-1)?.content ?? "");
    });
    const archive = new RedisSessionArchive({ redis, keyPrefix, retentionMs: 7 * 24 * 3600_000 });
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [createSessionSearchTool(archive)],
      script: "- content: unused\n",
      env: { FAKE_KEY: "sk-test-000000" },
      configOverrides: {
        models: {
          scripted: { provider: "openai", base_url: server.baseUrl, model: "m", api_key_env: "FAKE_KEY" },
        },
      },
    });
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    await events.waitUntilReady();
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    const run = async (userId: string, task: string) => {
      const payload = testPayload({ userId }, { task });
      await enqueueAgentRun(queue, payload);
      const out = await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 20_000);
      return { payload, answer: (out as { finalAnswer: string }).finalAnswer };
    };
    try {
      const first = await run("ann", "count the invoices");
      await expect
        .poll(async () => (await archive.runsVisibleTo("ann", 10)).map((r) => r.runId), { timeout: 10_000 })
        .toEqual([first.payload.runId]);
      expect(await archive.transcript("ann", first.payload.runId)).toEqual([
        { role: "user", text: "count the invoices" },
        { role: "assistant", text: "There are 4711 overdue invoices from Acme." },
      ]);
      const later = await run("ann", "what did I find before?");
      expect(later.answer).toContain(`run ${first.payload.runId}`);
      expect(later.answer).toContain("There are 4711 overdue invoices from Acme.");
      // The searching run is archived too, with its tool result.
      await expect
        .poll(async () => (await archive.transcript("ann", later.payload.runId)).map((e) => e.tool ?? e.role))
        .toEqual(["user", "session_search", "assistant"]);
      const other = await run("bob", "what did I find before?");
      expect(other.answer).toBe('No past run of yours mentions "overdue acme" (0 runs searched).');
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    }
  });
});
