import { chmod, mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startWorkerPart, toolRegistryFor } from "../../src/runtime/index.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import { type RecordedRequest, reply, startFakeChatServer } from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

type Msg = { role: string; content?: string | null };

/**
 * A run tree shares one layer, and it lands once, when the whole tree is done. A root that
 * spawns a sub-agent (spawn_task returns at once) and finishes first does not land while the
 * sub-agent still works: it waits, parked, for the runs it started, so what the sub-agent writes
 * after the root's last step reaches the workspace with the rest, instead of a layer that already
 * landed.
 */
describe("a run tree's layer", () => {
  it("lands what a spawned sub-agent writes after its root finished", async () => {
    let childAsked = 0;
    let letChildGoOn: () => void = () => undefined;
    const childMayGoOn = new Promise<void>((resolve) => {
      letChildGoOn = resolve;
    });
    const server = await startFakeChatServer(async (request: RecordedRequest) => {
      const messages = (request.body as { messages: Msg[] }).messages;
      const task = messages.find((m) => m.role === "user")?.content ?? "";
      const turns = messages.filter((m) => m.role === "assistant").length;
      if (task === "tree: parent") {
        return turns === 0
          ? reply.toolCalls([
              { name: "write_file", arguments: { path: "parent.txt", content: "from the root\n" }, id: "w" },
              {
                name: "spawn_task",
                arguments: { task: "tree: child", allowed_tools: ["write_file"] },
                id: "s",
              },
            ])
          : reply.content("root done");
      }
      if (task === "tree: child") {
        if (turns > 0) return reply.content("child done");
        // The sub-agent works on after its root has nothing left to do.
        childAsked++;
        await childMayGoOn;
        return reply.toolCalls([
          { name: "write_file", arguments: { path: "child.txt", content: "from the child\n" } },
        ]);
      }
      return reply.error(400, `unknown task ${task}`);
    });
    const keyPrefix = uniquePrefix("layer-tree");
    const dir = await mkdtemp(join(tmpdir(), "echo-layer-tree-"));
    const workspace = join(dir, "ws");
    await import("node:fs/promises").then((fs) => fs.mkdir(workspace));
    await chmod(dir, 0o755);
    const config = await testConfig(dir, {
      redis: { url: "redis://127.0.0.1:6379", key_prefix: keyPrefix },
      security: { profile: "personal_cli" },
      tools: { exec: { host: "sandbox" } },
      execution: { network_policy: "deny", workspace_layer: "required" },
      permissions: {
        elevated: { allow_from: { api: ["ann"] } },
        approval: { mode: "off", auto_approve: ["spawn_task", "write_file"] },
      },
      models: { main: { provider: "openai", base_url: server.baseUrl, model: "m", api_key_env: "FAKE_KEY" } },
      logging: { level: "silent", format: "json" },
    });
    const dataDir = join(dir, "data");
    const ctx = {
      config,
      logger: createLogger({ level: "silent", format: "json" }),
      env: { PATH: "/usr/bin:/bin", FAKE_KEY: "sk-fake" },
      redis,
      baseDir: dataDir,
      protectedPaths: [dataDir],
      dataDir,
    };
    const tools = await toolRegistryFor(ctx);
    expect(tools.layers?.kind).toBe("on");
    const worker = await startWorkerPart(ctx, tools);
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    try {
      const root = testPayload({}, { model: "main", task: "tree: parent", workspace });
      await enqueueAgentRun(queue, root);
      const job = await findRunJob(queue, root.runId);
      // The root's own steps are done while the sub-agent still waits for its model: it parks.
      await expect.poll(async () => childAsked).toBe(1);
      await expect.poll(async () => (await findRunJob(queue, root.runId))?.getState()).toBe("delayed");
      expect(await readdir(workspace)).toEqual([]);
      letChildGoOn();
      const outcome = await job?.waitUntilFinished(events, 60_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "root done" });
      expect(outcome.landing).toMatchObject({ state: "landed", changes: 2 });
      expect((await readdir(workspace)).sort()).toEqual(["child.txt", "parent.txt"]);
      expect(await readFile(join(workspace, "child.txt"), "utf8")).toBe("from the child\n");
    } finally {
      letChildGoOn();
      await worker.stop();
      await tools.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
    }
  });
});
