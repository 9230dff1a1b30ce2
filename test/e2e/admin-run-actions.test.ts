import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { RunOperations, storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createHttpServer, OperatorCredentials } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob } from "../../src/queue/index.js";
import { RunInspector } from "../../src/runs/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { ScheduleService, ScheduleStore } from "../../src/scheduler/index.js";
import { agentQueue, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { artifactPath, launchChromium } from "../helpers/browser.js";
import { freePort } from "../helpers/free-port.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * The /admin run page's cancel / retry / rerun buttons in headless Chromium against real parts: an
 * operator signed in with their own token cancels a parked run (its approval is withdrawn), retries
 * it and reruns it; each action is recorded under their name via admin, and a post without the
 * form's CSRF secret changes nothing.
 */

const TOKEN = "admin-run-actions-token-0123456789-abcdef";
const OPERATOR = "Olga Operator";
const redis = testRedisClient();
const keyPrefix = uniquePrefix("admin-actions");
const logger = createLogger({ level: "silent", format: "json" });
const queue = agentQueue(redis, keyPrefix);
const store = new ApprovalStore({
  redis,
  keyPrefix,
  policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: OPERATOR, email: null }] },
});
const inspector = new RunInspector({ redis, keyPrefix, approvals: store });
const operations = new RunOperations({ redis, keyPrefix, approvals: store });
let browser: Browser;
let app: ReturnType<typeof createHttpServer>;
let base: string;

const exec = defineTool({
  name: "exec",
  description: "does nothing (test tool): the gate asks a person first",
  parameters: Type.Object({ command: Type.String() }),
  async execute() {
    return toolSuccess("ran");
  },
});

beforeAll(async () => {
  browser = await launchChromium();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = createHttpServer({
    redis,
    logger,
    operators: new OperatorCredentials([{ id: OPERATOR, token: TOKEN }]),
    admin: {
      keyPrefix,
      publicUrl: base,
      approvals: store,
      runs: inspector,
      queues: [queue],
      schedules: new ScheduleService({ store: new ScheduleStore({ redis, keyPrefix }) }),
      actions: operations,
    },
  });
  await app.listen({ host: "127.0.0.1", port });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await inspector.close();
  await operations.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

/** A run parked on an exec approval; the worker that ran it to the park is stopped. */
async function parkedRun() {
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [exec],
    script: stringify([
      { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
      { content: "finished" },
    ]),
    configOverrides: { permissions: { elevated: { enabled: false } } },
  });
  const notifications = new ApprovalNotifications({ store, notifiers: [], publicUrl: base, logger });
  const worker = startAgentWorker({
    connection: redis,
    keyPrefix,
    concurrency: 1,
    deps: { ...deps, approvals: storeApprovals({ store, notifications, logger }) },
    cancels: operations,
  });
  const payload = testPayload({}, { workspace: await mkdtemp(join(tmpdir(), "echo-admin-actions-")) });
  try {
    await enqueueAgentRun(queue, payload);
    await expect
      .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
      .toBe("delayed");
  } finally {
    await worker.close();
  }
  const [request] = (await store.list({ status: "pending" })).filter((r) => r.runId === payload.runId);
  expect(request).toBeDefined();
  return { payload, request: request! };
}

async function signIn() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/admin`);
  await page.fill("#token", TOKEN);
  await Promise.all([page.waitForNavigation(), page.click("#sign-in")]);
  return { context, page };
}

describe("/admin run actions", () => {
  it("cancels a parked run from its page, then retries and reruns it, each recorded as the operator", async () => {
    const { payload, request } = await parkedRun();
    const { context, page } = await signIn();
    try {
      await page.goto(`${base}/admin/runs/${payload.runId}`);
      expect(await page.locator("#run-cancel").count()).toBe(1);
      expect(await page.locator("#run-rerun").count()).toBe(1);
      expect(await page.locator("#run-retry").count()).toBe(0);
      await page.screenshot({ path: await artifactPath("admin-run-actions.png"), fullPage: true });

      await page.fill("#reason-cancel", "deploy freeze");
      await Promise.all([page.waitForNavigation(), page.click("#run-cancel")]);
      expect(await page.textContent("#notice")).toContain("Cancelled");
      expect(await page.textContent("#run-facts")).toContain("cancelled");
      expect((await store.get(request.id))?.status).toBe("cancelled");
      expect(await page.locator("#run-cancel").count()).toBe(0);
      const actions = await page.textContent("#operator-actions");
      expect(actions).toContain("cancel");
      expect(actions).toContain(OPERATOR);
      expect(actions).toContain("admin");
      expect(actions).toContain("deploy freeze");

      await Promise.all([page.waitForNavigation(), page.click("#run-retry")]);
      expect(await page.textContent("#notice")).toContain("Retried");
      expect(await (await findRunJob(queue, payload.runId))?.getState()).toBe("waiting");

      await Promise.all([page.waitForNavigation(), page.click("#run-rerun")]);
      expect(await page.textContent("#notice")).toContain("Rerun started");
      const newRunId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
      expect(newRunId).not.toBe(payload.runId);
      expect(await page.textContent("#rerun-of")).toBe(payload.runId);
      await page.click("#rerun-of");
      expect(await page.textContent(".rerun")).toBe(newRunId);

      const detail = await inspector.showRun(payload.runId);
      expect(detail.operatorActions.map((a) => [a.action, a.by, a.via])).toEqual([
        ["cancel", OPERATOR, "admin"],
        ["retry", OPERATOR, "admin"],
        ["rerun", OPERATOR, "admin"],
      ]);
    } finally {
      await context.close();
    }
  });

  it("does nothing without the form's CSRF secret", async () => {
    const { payload } = await parkedRun();
    const { context } = await signIn();
    try {
      const cookie = (await context.cookies()).find((c) => c.name === "echo_admin");
      for (const body of ["reason=x", "reason=x&csrf=guess"]) {
        const res = await fetch(`${base}/admin/runs/${payload.runId}/cancel`, {
          method: "POST",
          headers: {
            cookie: `echo_admin=${cookie!.value}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body,
          redirect: "manual",
        });
        expect(res.status).toBe(403);
      }
      expect(await (await findRunJob(queue, payload.runId))?.getState()).toBe("delayed");
      expect((await inspector.showRun(payload.runId)).operatorActions).toEqual([]);
    } finally {
      await context.close();
      await operations.cancel(payload.runId, { id: OPERATOR, via: "cli" });
    }
  });
});
