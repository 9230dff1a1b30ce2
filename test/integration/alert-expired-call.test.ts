import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueue } from "../../src/queue/index.js";
import { type RunningPart, startWorkerPart } from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Alert `call_expired`, through the real worker: a run parks on an exec call nobody
 * decides; when its approval expires the call is denied, and the run's owner gets an alert mail
 * (real SMTP) linking to the run's /admin page.
 */

const PUBLIC_URL = "https://runner.example.test";
const keyPrefix = uniquePrefix("alert-expired").replace(/:/g, "-");
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
let smtp: SmtpCapture;
let worker: RunningPart;
let executed = 0;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "echo-alert-expired-"));
  smtp = await startSmtpCapture();
  await writeFile(
    join(dir, "script.yaml"),
    stringify([
      { content: "cleaning up", tool_calls: [{ name: "exec", arguments: { command: "rm -rf build" } }] },
      { content: "done" },
    ]),
  );
  const config = await testConfig(dir, {
    redis: { url: testRedisUrl(), key_prefix: keyPrefix },
    security: { profile: "personal_cli" },
    execution: {
      network_policy: "allow",
      in_doubt_policy: "fail",
      network_probe: { targets: [new URL(testRedisUrl()).host], timeout_ms: 1000 },
    },
    permissions: { elevated: { enabled: false }, approval: { wait_timeout_seconds: 2 } },
    smtp: { host: smtp.host, port: smtp.port, secure: false, user: "", from: "runner@example.test" },
    http: { public_url: PUBLIC_URL },
    approvers: [
      { id: "olga", email: "olga@example.test" },
      { id: "ann", email: "ann@example.test" },
    ],
    alerts: { gather_seconds: 1 },
    models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
    logging: { level: "silent", format: "json" },
  });
  const exec = defineTool({
    name: "exec",
    description: "counts executions (test tool)",
    parameters: Type.Object({ command: Type.String() }),
    async execute() {
      executed++;
      return toolSuccess("ran");
    },
  });
  worker = await startWorkerPart(
    { config, logger, env: {}, redis, baseDir: dir, protectedPaths: [] },
    { registry: createToolRegistry([exec]), releaseRun: async () => 0, close: async () => undefined },
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
});

describe("an expired approval alerts the run's owner", () => {
  it("mails the owner that the call was denied by expiry, with the run's /admin link", async () => {
    const queue = agentQueue(redis, keyPrefix);
    try {
      const payload = testPayload({ userId: "ann", agentId: "cleaner" }, { model: "scripted", maxSteps: 5 });
      await enqueueAgentRun(queue, payload);
      const mail = await smtp.waitForMail(
        (m) => m.subject?.includes("call denied: its approval expired") === true,
        30_000,
      );
      expect(mail.to && "text" in mail.to ? mail.to.text : "").toContain("ann@example.test");
      expect(mail.text).toContain(`${PUBLIC_URL}/admin/runs/${payload.runId}`);
      expect(mail.text).toContain("no approver decided on the exec call before its deadline");
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("completed");
      expect(executed).toBe(0);
      // One alert, however often the run read the expiry.
      expect(smtp.messages.filter((m) => m.subject?.includes("call denied"))).toHaveLength(1);
    } finally {
      await queue.close();
    }
  }, 60_000);
});
