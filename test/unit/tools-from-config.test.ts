import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyTool } from "../../src/catalog/index.js";
import { extraToolRuntimeFromConfig } from "../../src/runtime/index.js";
import { systemClock } from "../../src/shared/index.js";
import { createExtraTools, RECIPIENTS_KEY } from "../../src/tools/index.js";
import { testConfig } from "../helpers/agent-harness.js";
import { startLocalHttpServer } from "../helpers/local-http-server.js";
import { callTool, toolContext } from "../helpers/tool-call.js";

async function toolsFor(project: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const dir = await mkdtemp(join(tmpdir(), "echo-tfc-"));
  const config = await testConfig(dir, project);
  const tools = createExtraTools(
    extraToolRuntimeFromConfig(config, {
      env,
      resolver: { resolve: async () => ["127.0.0.1"] },
      clock: systemClock,
      baseDir: dir,
    }),
  );
  const byName = (name: string) => tools.find((t) => t.name === name) as AnyTool;
  return { dir, byName };
}

describe("tool config reaches the tools", () => {
  it("web_search: not ready without the provider, then without the key (naming the variable), ready with it", async () => {
    expect((await toolsFor({})).byName("web_search").readinessDetail()).toEqual({
      ready: false,
      detail: "no search provider is configured (tools.web.search.provider is none)",
    });
    const search = { tools: { web: { search: { provider: "tavily", api_key_env: "MY_SEARCH_KEY" } } } };
    expect((await toolsFor(search)).byName("web_search").readinessDetail()).toEqual({
      ready: false,
      detail:
        "MY_SEARCH_KEY is not set (API key of the tavily search provider, tools.web.search.api_key_env)",
    });
    expect((await toolsFor(search, { MY_SEARCH_KEY: "k" })).byName("web_search").readinessDetail()).toEqual({
      ready: true,
      detail: "searches through tavily",
    });
  });

  it("media endpoints: vision, image and tts are each ready only with their own config and key", async () => {
    const { byName } = await toolsFor(
      {
        tools: {
          media: {
            vision: { base_url: "http://127.0.0.1:9/v1", model: "vis-1", api_key_env: "" },
            tts: { base_url: "http://127.0.0.1:9/v1", model: "tts-1", api_key_env: "TTS_KEY" },
          },
        },
      },
      {},
    );
    expect(byName("vision_analyze").readinessDetail()).toEqual({
      ready: true,
      detail: "vis-1 at 127.0.0.1:9",
    });
    expect(byName("image_generate").readinessDetail().detail).toBe(
      "no image endpoint is configured (tools.media.image)",
    );
    expect(byName("text_to_speech").readinessDetail().detail).toBe(
      "TTS_KEY is not set (API key of tools.media.tts)",
    );
  });

  it("refuses a media endpoint without a model, naming the key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-tfc-"));
    await expect(
      testConfig(dir, { tools: { media: { image: { base_url: "http://x.example/v1", model: "" } } } }),
    ).rejects.toThrow(/tools\.media\.image\.model/);
  });

  it("skills dir: relative to the config file's folder", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-tfc-"));
    await mkdir(join(dir, "my-skills", "hello"), { recursive: true });
    await writeFile(join(dir, "my-skills", "hello", "SKILL.md"), "---\ndescription: says hello\n---\nHi\n");
    const config = await testConfig(dir, { tools: { skills: { dir: "my-skills" } } });
    const tools = createExtraTools(
      extraToolRuntimeFromConfig(config, {
        env: {},
        resolver: { resolve: async () => [] },
        clock: systemClock,
        baseDir: dir,
      }),
    );
    const list = tools.find((t) => t.name === "skills_list") as AnyTool;
    expect(list.readinessDetail()).toEqual({ ready: true, detail: `skills under ${join(dir, "my-skills")}` });
    expect((await callTool(list, {})).output).toBe("- hello: says hello");
  });

  it("message: an unlisted recipient is refused naming the allow-list key; an empty list lets nobody through", async () => {
    const hooks = await startLocalHttpServer({
      "POST /hook": (_hit, res) => {
        res.writeHead(204).end();
      },
    });
    try {
      const messaging = (allowed: string[]) => ({
        tools: {
          messaging: {
            allowed_recipients: allowed,
            webhooks: { ops: { url: `${hooks.origin}/hook`, secret_env: "HOOK_SECRET" } },
            notify_webhook: "ops",
          },
        },
        // The sink is on loopback, which config refuses for a webhook unless it is allowed.
        notifications: { allow_internal_webhooks: [new URL(hooks.origin).host] },
      });
      const env = { HOOK_SECRET: "s3cret" };
      const closed = (await toolsFor(messaging([]), env)).byName("message");
      const args = { to: "ops", text: "hello", channel: "webhook" };
      const refused = await callTool(closed, args);
      expect(refused).toMatchObject({ success: false, errorKind: "denied" });
      if (!refused.success)
        expect(refused.error).toContain(`${RECIPIENTS_KEY} is empty, so nobody may be messaged`);
      expect(closed.checkPermissions(args, toolContext(closed, args))).toMatchObject({ behavior: "deny" });

      const open = (await toolsFor(messaging(["webhook:ops"]), env)).byName("message");
      expect(await callTool(open, args)).toMatchObject({
        success: true,
        output: "Sent by webhook to webhook ops.",
      });
      expect(hooks.hitsOf("/hook")).toHaveLength(1);
      expect(hooks.hitsOf("/hook")[0]?.headers["x-echo-runner-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
      const notify = (await toolsFor(messaging(["webhook:ops"]), env)).byName("notify");
      expect(notify.readinessDetail()).toEqual({ ready: true, detail: "delivers by webhook" });
    } finally {
      await hooks.close();
    }
  });

  it("a webhook whose secret variable is unset stops start-up naming the key; notify_webhook must name a webhook", async () => {
    await expect(
      toolsFor({
        tools: {
          messaging: { webhooks: { ops: { url: "https://h.example/x", secret_env: "UNSET_SECRET" } } },
        },
      }),
    ).rejects.toThrow(
      /tools\.messaging\.webhooks\.ops\.secret_env needs a secret in the environment variable UNSET_SECRET/,
    );
    const dir = await mkdtemp(join(tmpdir(), "echo-tfc-"));
    await expect(testConfig(dir, { tools: { messaging: { notify_webhook: "nope" } } })).rejects.toThrow(
      /tools\.messaging\.notify_webhook/,
    );
  });
});
