import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicReply, startFakeAnthropicServer } from "../../../../test/helpers/fake-anthropic-server.js";
import {
  type FakeChatServer,
  reply,
  startFakeChatServer,
} from "../../../../test/helpers/fake-chat-server.js";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";
import type { DoctorReport } from "./doctor.js";

/**
 * `doctor --probe-models` sends one minimal request per model to a local server that accepts the
 * key `sk-good` and the model `real-model` only, so each wrong key or name is its own finding.
 * Redis is a closed port: those checks fail fast and are not what these tests look at.
 */
let openai: FakeChatServer;
let anthropic: FakeChatServer;
let dir: string;

const authOf = (headers: Record<string, unknown>) =>
  String(headers.authorization ?? headers["x-api-key"] ?? "").replace(/^Bearer /, "");

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-doctor-models-"));
  openai = await startFakeChatServer((request) => {
    if (authOf(request.headers) !== "sk-good") return reply.error(401, "Incorrect API key provided");
    const model = (request.body as { model?: string }).model;
    if (model !== "real-model") return reply.error(404, `The model \`${model}\` does not exist`);
    return reply.content("OK");
  });
  anthropic = await startFakeAnthropicServer((request) =>
    authOf(request.headers) === "sk-good"
      ? anthropicReply.text("OK")
      : anthropicReply.error(401, "authentication_error", "invalid x-api-key"),
  );
});

afterAll(async () => {
  await Promise.all([openai?.close(), anthropic?.close()]);
});

async function doctor(args: string[]) {
  const path = join(dir, "echo.yaml");
  await writeFile(
    path,
    `redis: { url: "redis://127.0.0.1:1" }
models:
  main: { provider: openai, base_url: "${openai.baseUrl}", model: real-model, api_key_env: GOOD_KEY }
  typo: { provider: openai, base_url: "${openai.baseUrl}", model: real-modle, api_key_env: GOOD_KEY }
  stale: { provider: openai, base_url: "${openai.baseUrl}", model: real-model, api_key_env: OLD_KEY }
  claude: { provider: anthropic, base_url: "${anthropic.baseUrl}", model: claude-x, api_key_env: OLD_KEY }
  unset: { provider: openai, base_url: "${openai.baseUrl}", model: real-model, api_key_env: NO_SUCH_KEY }
  script: { provider: scripted, script: ./script.yaml }
`,
  );
  const out = bufferIo("", { HOME: dir, GOOD_KEY: "sk-good", OLD_KEY: "sk-old" }, dir);
  const code = await runCli(["doctor", "--json", "--timeout", "2", "--config", path, ...args], out.io);
  const report = JSON.parse(out.stdout()) as DoctorReport;
  return { code, check: (name: string) => report.checks.find((c) => c.name === name), report };
}

describe("echo-runner doctor --probe-models", () => {
  it("reports a wrong key, a wrong model name and an unset key variable, each naming what to fix", async () => {
    const before = openai.requests.length + anthropic.requests.length;
    const { code, check } = await doctor(["--probe-models"]);
    expect(code).toBe(1);
    expect(check("model:main")).toMatchObject({ status: "ok" });
    expect(check("model:script")).toMatchObject({ status: "ok" });
    expect(check("model:typo")).toMatchObject({ status: "fail" });
    expect(check("model:typo")?.reason).toMatch(/MODEL_REQUEST_REJECTED: .*"real-modle"/);
    expect(check("model:typo")?.fix).toContain("models.typo.model");
    for (const name of ["stale", "claude"]) {
      expect(check(`model:${name}`)?.reason).toMatch(/^MODEL_AUTH_FAILED: /);
      expect(check(`model:${name}`)?.fix).toContain(`OLD_KEY (models.${name}.api_key_env)`);
    }
    expect(check("model:unset")).toMatchObject({ status: "fail" });
    expect(check("model:unset")?.reason).toContain("NO_SUCH_KEY (models.unset.api_key_env) is not set");
    // One request per HTTP model with a key set (main, typo, stale, claude), none for the others.
    expect(openai.requests.length + anthropic.requests.length - before).toBe(4);
  });

  it("sends no request to any model without --probe-models", async () => {
    const before = openai.requests.length + anthropic.requests.length;
    const { check } = await doctor([]);
    expect(check("model:main")).toBeUndefined();
    expect(openai.requests.length + anthropic.requests.length).toBe(before);
  });
});
