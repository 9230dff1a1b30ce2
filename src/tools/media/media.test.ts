import { mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type LocalHttpServer, startLocalHttpServer } from "../../../test/helpers/local-http-server.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { callTool, journalledCall, toolContext } from "../../../test/helpers/tool-call.js";
import { Journal } from "../../journal/index.js";
import { createImageGenerateTool } from "./image-generate.js";
import type { MediaEndpoint } from "./media-provider.js";
import { createTextToSpeechTool } from "./text-to-speech.js";
import { createVisionAnalyzeTool } from "./vision-analyze.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
let server: LocalHttpServer;
let workspace: string;

/** A local server speaking the OpenAI wire format for chat (vision), images and speech. */
beforeAll(async () => {
  server = await startLocalHttpServer({
    "POST /v1/chat/completions": (hit, res) => {
      const body = JSON.parse(hit.body.toString("utf8"));
      const image = body.messages[0].content[1].image_url.url as string;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          choices: [{ message: { role: "assistant", content: `saw ${image.slice(0, 22)} (${body.model})` } }],
        }),
      );
    },
    "POST /v1/images/generations": (hit, res) => {
      const body = JSON.parse(hit.body.toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ data: [{ b64_json: PNG.toString("base64"), revised_prompt: `a ${body.prompt}` }] }),
      );
    },
    "POST /v1/audio/speech": (hit, res) => {
      const body = JSON.parse(hit.body.toString("utf8"));
      res.writeHead(200, { "content-type": "audio/mpeg" });
      res.end(Buffer.from(`AUDIO:${body.voice}:${body.input}`));
    },
    "POST /v2/chat/completions": (_hit, res) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end('{"error":{"message":"model overloaded"}}');
    },
  });
});

afterAll(() => server.close());

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "media-ws-"));
});

function endpoint(overrides: Partial<MediaEndpoint> = {}): MediaEndpoint {
  return {
    baseUrl: `${server.origin}/v1`,
    model: "test-model",
    apiKey: "sk-test",
    apiKeyEnv: "MEDIA_KEY",
    ...overrides,
  };
}

const base = { fetch: globalThis.fetch, hostPolicy: () => undefined };

describe("vision_analyze", () => {
  it("sends a workspace image inline and returns the model's answer", async () => {
    await writeFile(join(workspace, "chart.png"), PNG);
    const tool = createVisionAnalyzeTool({ ...base, endpoint: endpoint() });
    const result = await callTool(tool, { path: "chart.png", prompt: "What trend?" }, { workspace });
    expect(result).toMatchObject({ success: true, output: "saw data:image/png;base64, (test-model)" });
    const hit = server.hitsOf("/v1/chat/completions").at(-1);
    expect(hit?.headers.authorization).toBe("Bearer sk-test");
  });

  it("passes an image URL to the provider", async () => {
    const tool = createVisionAnalyzeTool({ ...base, endpoint: endpoint() });
    const result = await callTool(tool, { url: "https://images.example/cat.png" }, { workspace });
    expect(result.output).toBe("saw https://images.example (test-model)");
  });

  it("refuses an image outside the workspace, through a symlink too", async () => {
    const outside = await mkdtemp(join(tmpdir(), "outside-"));
    await writeFile(join(outside, "secret.png"), PNG);
    await symlink(join(outside, "secret.png"), join(workspace, "link.png"));
    const tool = createVisionAnalyzeTool({ ...base, endpoint: endpoint() });
    for (const path of [join(outside, "secret.png"), "link.png", "../secret.png"]) {
      expect(await callTool(tool, { path }, { workspace }), path).toMatchObject({
        success: false,
        errorKind: "denied",
      });
    }
  });

  it.each([
    [{}, "path, url: give exactly one of path and url"],
    [{ path: "a.png", url: "https://x.example/a.png" }, "give exactly one of path and url"],
    [{ url: "ftp://x.example/a.png" }, "url: must be an http or https URL"],
    [{ path: "a.png", detail: "max" }, 'detail: must be one of "low", "high", "auto"'],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(createVisionAnalyzeTool({ ...base, endpoint: endpoint() }), args, {
      workspace,
    });
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });

  it("reports a provider error with its status", async () => {
    await writeFile(join(workspace, "a.png"), PNG);
    const tool = createVisionAnalyzeTool({ ...base, endpoint: endpoint({ baseUrl: `${server.origin}/v2` }) });
    const result = await callTool(tool, { path: "a.png" }, { workspace });
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    if (!result.success) expect(result.error).toContain('HTTP 500: {"error":{"message":"model overloaded"}}');
  });
});

describe("media readiness", () => {
  it.each([
    [
      "vision",
      () => createVisionAnalyzeTool({ ...base, endpoint: undefined }),
      "no vision endpoint is configured (tools.media.vision)",
    ],
    [
      "image",
      () => createImageGenerateTool({ ...base, endpoint: undefined }),
      "no image endpoint is configured (tools.media.image)",
    ],
    [
      "speech",
      () => createTextToSpeechTool({ ...base, endpoint: undefined }),
      "no tts endpoint is configured (tools.media.tts)",
    ],
    [
      "image without its key",
      () => createImageGenerateTool({ ...base, endpoint: endpoint({ apiKey: undefined }) }),
      "MEDIA_KEY is not set (API key of tools.media.image)",
    ],
  ])("%s: not ready, with the reason", (_label, build, detail) => {
    expect(build().readinessDetail()).toEqual({ ready: false, detail });
  });

  it("is ready for a keyless local server", () => {
    const tool = createVisionAnalyzeTool({
      ...base,
      endpoint: endpoint({ apiKey: undefined, apiKeyEnv: undefined }),
    });
    expect(tool.readinessDetail().ready).toBe(true);
  });

  it("refuses the provider's host under network_policy restricted", async () => {
    const tool = createTextToSpeechTool({
      fetch: globalThis.fetch,
      hostPolicy: (host) => `${host} is not in execution.allowed_hosts`,
      endpoint: endpoint(),
    });
    const result = await callTool(tool, { text: "hi" }, { workspace });
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    expect(await readdir(workspace)).toEqual([]);
  });
});

describe("image_generate", () => {
  it("saves the generated PNG in the workspace", async () => {
    const tool = createImageGenerateTool({ ...base, endpoint: endpoint() });
    const result = await callTool(tool, { prompt: "lighthouse", path: "art/lighthouse.png" }, { workspace });
    expect(result).toMatchObject({
      success: true,
      output: `Saved the image to art/lighthouse.png (${PNG.length} bytes).\nRevised prompt: a lighthouse`,
    });
    expect(await readFile(join(workspace, "art/lighthouse.png"))).toEqual(PNG);
  });

  it("refuses a path outside the workspace before calling the provider", async () => {
    const before = server.hitsOf("/v1/images/generations").length;
    const tool = createImageGenerateTool({ ...base, endpoint: endpoint() });
    const result = await callTool(tool, { prompt: "x", path: "../escape.png" }, { workspace });
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    expect(server.hitsOf("/v1/images/generations")).toHaveLength(before);
  });

  it.each([
    [{}, "prompt: is required"],
    [{ prompt: "x", size: "huge" }, "size:"],
    [{ prompt: "x", path: "a.jpg" }, "path:"],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(createImageGenerateTool({ ...base, endpoint: endpoint() }), args, {
      workspace,
    });
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });
});

describe("text_to_speech", () => {
  it("saves the audio in the workspace under a name derived from the call", async () => {
    const tool = createTextToSpeechTool({ ...base, endpoint: { ...endpoint(), voice: "nova" } });
    const args = { text: "Good morning" };
    const ctx = toolContext(tool, args, { workspace });
    const result = await callTool(tool, args, { workspace });
    const rel = `audio/${ctx.idempotencyKey.slice(0, 16)}.mp3`;
    expect(result).toMatchObject({ success: true, data: { path: rel } });
    expect((await readFile(join(workspace, rel))).toString()).toBe("AUDIO:nova:Good morning");
  });

  it.each([
    [{}, "text: is required"],
    [{ text: "x", format: "midi" }, "format: must be one of"],
    [{ text: "x", voice: "a b" }, "voice:"],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(createTextToSpeechTool({ ...base, endpoint: endpoint() }), args, {
      workspace,
    });
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });
});

describe("media side effects under the journal", () => {
  const redis: Redis = testRedisClient();
  const prefix = uniquePrefix("media");
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  });

  it.each([
    [
      "image_generate",
      "/v1/images/generations",
      () => createImageGenerateTool({ ...base, endpoint: endpoint() }),
      { prompt: "a fox" },
    ],
    [
      "text_to_speech",
      "/v1/audio/speech",
      () => createTextToSpeechTool({ ...base, endpoint: endpoint() }),
      { text: "once" },
    ],
  ])(
    "%s: a replay returns the journalled result and the provider is not called again",
    async (_n, route, build, args) => {
      const tool = build();
      const journal = new Journal({ redis, keyPrefix: prefix });
      const ctx = toolContext(tool, args, { workspace });
      const before = server.hitsOf(route).length;
      const first = await journalledCall(journal, `run-${tool.name}`, tool, args, ctx);
      const second = await journalledCall(journal, `run-${tool.name}`, tool, args, ctx);
      expect(first.result.success).toBe(true);
      expect(second).toEqual({ result: first.result, replay: true });
      expect(server.hitsOf(route)).toHaveLength(before + 1);
    },
  );
});
