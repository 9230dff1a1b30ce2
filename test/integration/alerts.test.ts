import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueue } from "../../src/queue/index.js";
import { type RunningPart, startWorkerPart } from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import { type FakeChatServer, reply, startFakeChatServer } from "../helpers/fake-chat-server.js";
import { type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Alerts, through the real worker (startWorkerPart): a model server that refuses the
 * API key fails the run with MODEL_AUTH_FAILED; its owner gets a mail over real SMTP and the alert
 * webhook a post over real HTTP, each linking to the run's /admin page, the key in neither. Twenty
 * failing runs of one schedule become one digest (with the schedule's "failing" alert in it).
 */

const WRONG_KEY = "sk-wrong-key-0123456789abcdef";
const PUBLIC_URL = "https://runner.example.test";
const keyPrefix = uniquePrefix("alerts").replace(/:/g, "-");
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
let smtp: SmtpCapture;
let hooks: LocalHttpServer;
let model: FakeChatServer;
let worker: RunningPart;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "echo-alerts-"));
  smtp = await startSmtpCapture();
  hooks = await startLocalHttpServer({ "POST /alerts": (_hit, res) => void res.writeHead(200).end("ok") });
  model = await startFakeChatServer(() => reply.error(401, "Incorrect API key provided"));
  const config = await testConfig(dir, {
    redis: { url: testRedisUrl(), key_prefix: keyPrefix },
    security: { profile: "personal_cli" },
    execution: {
      network_policy: "allow",
      in_doubt_policy: "fail",
      worker_concurrency: 4,
      network_probe: { targets: [new URL(testRedisUrl()).host], timeout_ms: 1000 },
    },
    permissions: { elevated: { enabled: false } },
    smtp: { host: smtp.host, port: smtp.port, secure: false, user: "", from: "runner@example.test" },
    http: { public_url: PUBLIC_URL },
    approvers: [
      { id: "ann", email: "ann@example.test" },
      { id: "olga", email: "olga@example.test" },
    ],
    alerts: {
      approvers: [],
      chat_webhooks: [{ format: "json", url_env: "ALERT_HOOK" }],
      gather_seconds: 3,
      digest_window_seconds: 600,
    },
    notifications: { allow_internal_webhooks: [new URL(hooks.origin).host] },
    models: {
      main: { provider: "openai", base_url: model.baseUrl, model: "gpt-test", api_key_env: "MODEL_KEY" },
    },
    logging: { level: "silent", format: "json" },
  });
  worker = await startWorkerPart(
    {
      config,
      logger,
      env: { MODEL_KEY: WRONG_KEY, ALERT_HOOK: `${hooks.origin}/alerts` },
      redis,
      baseDir: dir,
      protectedPaths: [],
    },
    { registry: createToolRegistry([]), releaseRun: async () => 0, close: async () => undefined },
  );
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  const queue = openAgentQueue(redis, keyPrefix);
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
  await smtp?.close();
  await hooks?.close();
  await model?.close();
});

/** The alert posts the webhook received, parsed. */
function posts(): { type: string; count: number; alerts: { runId: string; code: string; url: string }[] }[] {
  return hooks.hitsOf("/alerts").map((h) => JSON.parse(h.body.toString("utf8")));
}

describe("alerts through the real worker", () => {
  it("mails a run's owner and posts to the webhook when a wrong model key fails it", async () => {
    const queue = agentQueue(redis, keyPrefix);
    try {
      const payload = testPayload({ userId: "ann", agentId: "solo" }, { model: "main", maxSteps: 3 });
      const started = Date.now();
      await enqueueAgentRun(queue, payload);
      const mail = await smtp.waitForMail((m) => m.text?.includes(payload.runId) === true, 60_000);
      expect(Date.now() - started).toBeLessThan(60_000);
      const job = await findRunJob(queue, payload.runId);
      expect(await job?.getState()).toBe("failed");
      expect(mail.to && "text" in mail.to ? mail.to.text : "").toContain("ann@example.test");
      expect(mail.subject).toContain("MODEL_AUTH_FAILED");
      expect(mail.text).toContain(`${PUBLIC_URL}/admin/runs/${payload.runId}`);
      expect(mail.text).not.toContain(WRONG_KEY);
      await expect
        .poll(() => posts().filter((p) => p.alerts.some((a) => a.runId === payload.runId)).length, {
          timeout: 10_000,
        })
        .toBe(1);
      const post = posts().find((p) => p.alerts.some((a) => a.runId === payload.runId))!;
      expect(post.type).toBe("alert");
      expect(post.alerts[0]?.code).toBe("MODEL_AUTH_FAILED");
      expect(post.alerts[0]?.url).toBe(`${PUBLIC_URL}/admin/runs/${payload.runId}`);
      expect(JSON.stringify(post)).not.toContain(WRONG_KEY);
      // Only the owner: olga is an approver but not listed in alerts.approvers.
      expect(smtp.messages.filter((m) => m.text?.includes(payload.runId))).toHaveLength(1);
    } finally {
      await queue.close();
    }
  }, 90_000);

  it("gathers a storm of 20 failures of one schedule into one digest", async () => {
    const queue = agentQueue(redis, keyPrefix);
    try {
      const payloads = Array.from({ length: 20 }, () =>
        testPayload(
          { userId: "ann", agentId: "nightly", origin: { kind: "schedule", scheduleId: "nightly" } },
          { model: "main", maxSteps: 3 },
        ),
      );
      const before = smtp.messages.length;
      const postsBefore = posts().length;
      await Promise.all(payloads.map((p) => enqueueAgentRun(queue, p)));
      const digest = await smtp.waitForMail((m) => m.subject?.includes("schedule nightly") === true, 60_000);
      // 20 failed runs, and the schedule failing 3 times in a row (alerts.schedule_failures) once.
      expect(digest.subject).toContain("21 alerts");
      for (const p of payloads) expect(digest.text).toContain(`${PUBLIC_URL}/admin/runs/${p.runId}`);
      expect(digest.text?.match(/schedule failing/g)).toHaveLength(1);
      expect(digest.text?.match(/run failed/g)).toHaveLength(20);
      await expect.poll(() => posts().length - postsBefore, { timeout: 10_000 }).toBe(1);
      const post = posts().at(-1)!;
      expect(post.type).toBe("alert.digest");
      expect(post.count).toBe(21);
      expect(post.alerts.filter((a) => a.code === "MODEL_AUTH_FAILED")).toHaveLength(21);
      // Nothing more within the window: the storm was one message per target.
      await new Promise((r) => setTimeout(r, 5_000));
      expect(smtp.messages.length - before).toBe(1);
      expect(posts().length - postsBefore).toBe(1);
    } finally {
      await queue.close();
    }
  }, 90_000);
});
