import { access, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, EmailNotifier } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createHttpServer } from "../../src/http/index.js";
import { AuditTrail } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import type { Promoter } from "../../src/queue/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startApprovalPromoter } from "../../src/runtime/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { agentQueue, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { launchChromium } from "../helpers/browser.js";
import { freePort } from "../helpers/free-port.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/** The promoter's store only reads the decision events; its policy decides nothing. */
const PROMOTER_POLICY = { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: null }] };
let promoter: Promoter | undefined;

/**
 * The whole approval path with real parts: a scripted agent's exec call parks its job (no worker
 * slot held), the approval mail reaches a real SMTP server, a person clicks the link in headless
 * Chromium, the job resumes and the command's side effect exists; the audit trail names the approver.
 */

const redis = testRedisClient();
const keyPrefix = uniquePrefix("parked");
const logger = createLogger({ level: "silent", format: "json" });
let smtp: SmtpCapture;
let browser: Browser;
let app: ReturnType<typeof createHttpServer>;
let publicUrl: string;
let dir: string;

/** A real side effect under the catalog name exec: creates the file named in the command. */
const markerExec = defineTool({
  name: "exec",
  description: "creates a marker file (test tool)",
  parameters: Type.Object({ command: Type.String() }),
  async execute(args) {
    await writeFile(join(dir, args.command.replace(/^touch /, "")), "ran\n");
    return toolSuccess(`ran ${args.command}`);
  },
});

const script = stringify([
  { tool_calls: [{ name: "exec", arguments: { command: "touch MARKER" } }] },
  { content: "finished" },
]);

async function setup(waitSeconds: number, marker: string) {
  const runScript = script.replace("MARKER", marker);
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [markerExec],
    script: runScript,
    configOverrides: {
      permissions: { elevated: { enabled: false }, approval: { wait_timeout_seconds: waitSeconds } },
    },
  });
  const store = new ApprovalStore({
    redis,
    keyPrefix,
    policy: { waitTimeoutMs: waitSeconds * 1000, approvers: [{ id: "alice", email: "alice@example.test" }] },
  });
  const notifications = new ApprovalNotifications({
    store,
    notifiers: [
      new EmailNotifier({
        host: smtp.host,
        port: smtp.port,
        secure: false,
        user: "",
        from: "runner@example.test",
      }),
    ],
    publicUrl,
    logger,
  });
  return { deps: { ...deps, approvals: storeApprovals({ store, notifications, logger }) }, store };
}

const queue = agentQueue(redis, keyPrefix);
const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });

beforeAll(async () => {
  // The worker's promoter wakes a parked run from the decision events, as in production.
  promoter = startApprovalPromoter({
    connection: redis,
    keyPrefix,
    store: (reader) => new ApprovalStore({ redis: reader, keyPrefix, policy: PROMOTER_POLICY }),
    logger,
  });
  dir = await mkdtemp(join(tmpdir(), "echo-parked-"));
  smtp = await startSmtpCapture();
  browser = await launchChromium();
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  // The server runs the worker's config: alice is on its approvers list, or her link decides nothing.
  const store = new ApprovalStore({
    redis,
    keyPrefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: "alice@example.test" }] },
  });
  app = createHttpServer({
    redis,
    logger,
    approvals: {
      store,
      publicUrl,
    },
  });
  await app.listen({ host: "127.0.0.1", port });
});

afterAll(async () => {
  await promoter?.stop();
  await browser?.close();
  await app?.close();
  await smtp?.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

async function clickInMail(marker: string, button: "#approve" | "#deny"): Promise<void> {
  const mail = await smtp.waitForMail((m) => (m.text ?? "").includes(marker));
  const link = new RegExp(`${publicUrl}/approvals/[0-9a-f]+\\?t=[A-Za-z0-9_-]{43}`).exec(
    mail.text ?? "",
  )?.[0];
  expect(link).toBeDefined();
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link!);
  await Promise.all([page.waitForURL("**/decision"), page.click(button)]);
  await context.close();
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe("a parked run resumes on a person's decision", () => {
  it("approve: the job parks holding no worker, the click resumes it and the command runs once", async () => {
    const { deps } = await setup(3600, "approved.txt");
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("delayed");
      expect(await exists(join(dir, "approved.txt"))).toBe(false);
      await clickInMail("approved.txt", "#approve");
      const outcome = await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 15_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "finished" });
      expect(await exists(join(dir, "approved.txt"))).toBe(true);
      const entries = await new AuditTrail({ redis, keyPrefix }).readByTrace(payload.traceId);
      const execution = entries.find((e) => e.entry.kind === "execution");
      expect(execution?.entry).toMatchObject({
        tool: "exec",
        approvalSource: "human",
        approver: "alice",
        outcome: "success",
      });
    } finally {
      await worker.close();
    }
  });

  it("deny: the side effect never happens and the run finishes with the denial", async () => {
    const { deps } = await setup(3600, "denied.txt");
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("delayed");
      await clickInMail("denied.txt", "#deny");
      const outcome = await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 15_000);
      expect(outcome).toMatchObject({ status: "completed" });
      expect(await exists(join(dir, "denied.txt"))).toBe(false);
      const entries = await new AuditTrail({ redis, keyPrefix }).readByTrace(payload.traceId);
      expect(entries.some((e) => e.entry.kind === "execution")).toBe(false);
      expect(
        entries
          .filter((e) => e.entry.kind === "decision")
          .map((e) => (e.entry as { verdict: string }).verdict),
      ).toEqual(["ask", "deny"]);
    } finally {
      await worker.close();
    }
  });

  it("no decision: at the deadline the run wakes and continues with a denial", async () => {
    const { deps } = await setup(2, "expired.txt");
    const worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      const outcome = await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 20_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "finished" });
      expect(await exists(join(dir, "expired.txt"))).toBe(false);
    } finally {
      await worker.close();
    }
  });
});
