import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startWorkerPart, toolRegistryFor } from "../../src/runtime/index.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import { type RecordedRequest, reply, startFakeChatServer } from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const ROOT = resolve(import.meta.dirname, "../..");
const redis = testRedisClient();
afterAll(() => redis.disconnect());

type Body = {
  messages: { role: string; content?: string | null }[];
  tools?: { function: { name: string } }[];
};

/**
 * An agent uses a tool of a real MCP server (stdio, test/fixtures/mcp/echo-server.ts) through the
 * worker as `start` builds it: MCP tools are deferred, so the model first meets only tool_search;
 * it searches the server's prefix, is then sent the server's tools, and calls one.
 */
describe("an MCP tool in a run", () => {
  it("is found with tool_search, offered, and called on the real server", async () => {
    const offered: string[][] = [];
    const server = await startFakeChatServer((request: RecordedRequest) => {
      const body = request.body as Body;
      offered.push((body.tools ?? []).map((t) => t.function.name));
      const tools = body.messages.filter((m) => m.role === "tool");
      if (tools.length === 0)
        return reply.toolCalls([{ name: "tool_search", arguments: { query: "mcp__fixture" } }]);
      if (tools.length === 1)
        return reply.toolCalls([{ name: "mcp__fixture__echo", arguments: { text: "hello from the run" } }]);
      return reply.content(`the server said: ${tools[1]?.content ?? ""}`);
    });
    const keyPrefix = uniquePrefix("mcp-run");
    const dir = await mkdtemp(join(tmpdir(), "echo-mcp-run-"));
    const workspace = join(dir, "ws");
    await mkdir(workspace);
    const config = await testConfig(dir, {
      redis: { url: "redis://127.0.0.1:6379", key_prefix: keyPrefix },
      tools: {
        mcp: {
          servers: {
            fixture: {
              command: process.execPath,
              args: [join(ROOT, "bin/run-ts.js"), join(ROOT, "test/fixtures/mcp/echo-server.ts")],
            },
          },
        },
      },
      execution: { network_policy: "deny", workspace_layer: "off" },
      permissions: { elevated: { enabled: false } },
      models: { main: { provider: "openai", base_url: server.baseUrl, model: "m", api_key_env: "FAKE_KEY" } },
      logging: { level: "silent", format: "json" },
    });
    const dataDir = join(dir, "data");
    const ctx = {
      config,
      logger: createLogger({ level: "silent", format: "json" }),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", FAKE_KEY: "sk-fake" },
      redis,
      baseDir: dir,
      protectedPaths: [dataDir],
      dataDir,
    };
    const tools = await toolRegistryFor(ctx);
    expect(tools.registry.get("mcp__fixture__echo")).toBeDefined();
    const worker = await startWorkerPart(ctx, tools);
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    try {
      const payload = testPayload({}, { model: "main", task: "echo something", workspace });
      await enqueueAgentRun(queue, payload);
      const job = await findRunJob(queue, payload.runId);
      const outcome = await job?.waitUntilFinished(events, 60_000);
      expect(outcome).toMatchObject({
        status: "completed",
        finalAnswer: expect.stringContaining("echo: hello from the run"),
      });
      // Deferred until found: the first request offers tool_search and not the server's tools.
      expect(offered[0]).toContain("tool_search");
      expect(offered[0]).not.toContain("mcp__fixture__echo");
      expect(offered[1]).toContain("mcp__fixture__echo");
    } finally {
      await worker.stop();
      await tools.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    }
  }, 90_000);
});
