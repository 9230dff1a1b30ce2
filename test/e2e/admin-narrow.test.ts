import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
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
 * /admin on a phone and on a laptop, in headless Chromium against real parts: the dashboard (with a
 * pending approval whose command is long), the run list and a run page never scroll sideways, and
 * a pending approval's Approve / Deny and the run page's cancel / retry / rerun buttons are on screen.
 */

const TOKEN = "admin-narrow-token-0123456789-abcdefghij";
const OPERATOR = "Olga Operator";
const redis = testRedisClient();
const keyPrefix = uniquePrefix("admin-narrow");
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
let runId: string;
let cancelledRunId: string;

const LONG_COMMAND = `tar -czf /tmp/${"very-long-archive-name-".repeat(8)}.tgz ${"some/deeply/nested/folder/".repeat(6)}`;

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

  runId = await parkedRun();
  // A second one, cancelled: its page offers retry.
  cancelledRunId = await parkedRun();
  await operations.cancel(cancelledRunId, { id: OPERATOR, via: "cli" });
}, 60_000);

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

/** A run parked on an exec approval with a long command (a wide cell), through the real worker. */
async function parkedRun(): Promise<string> {
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [exec],
    script: stringify([
      { tool_calls: [{ name: "exec", arguments: { command: LONG_COMMAND } }] },
      { content: "done" },
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
  const payload = testPayload({}, { workspace: await mkdtemp(join(tmpdir(), "echo-admin-narrow-")) });
  try {
    await enqueueAgentRun(queue, payload);
    const deadline = Date.now() + 15_000;
    while ((await (await findRunJob(queue, payload.runId))?.getState()) !== "delayed") {
      if (Date.now() > deadline) throw new Error("the run did not park");
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await worker.close();
  }
  return payload.runId;
}

async function signedIn(width: number, height: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  await page.goto(`${base}/admin`);
  await page.fill("#token", TOKEN);
  await Promise.all([page.waitForNavigation(), page.click("#sign-in")]);
  return page;
}

/** The page's width against the window's: more means the reader scrolls sideways. */
async function widths(page: Page): Promise<{ scroll: number; inner: number }> {
  return page.evaluate<{ scroll: number; inner: number }>(
    "({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })",
  );
}

/** Whether the element is laid out inside the window horizontally (so it can be seen and tapped). */
async function onScreen(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  const inner = await page.evaluate<number>("window.innerWidth");
  return box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= inner;
}

for (const [width, height] of [
  [390, 844],
  [1280, 800],
] as const) {
  describe(`/admin at ${width} × ${height}`, () => {
    it("the dashboard, the run list and a run page have no horizontal scroll; the run buttons are on screen", async () => {
      const page = await signedIn(width, height);
      try {
        expect(await page.locator(`tr[data-run="${runId}"]`).count()).toBe(1);
        expect(await widths(page)).toSatisfy(({ scroll, inner }) => scroll <= inner);
        // A pending approval's buttons are where the thumb is, not at the end of a table that
        // scrolls sideways (its long command notwithstanding).
        const approval = (await store.list({ status: "pending" })).find((r) => r.runId === runId);
        expect(approval).toBeDefined();
        expect(await onScreen(page, `#approve-${approval?.id}`)).toBe(true);
        expect(await onScreen(page, `#deny-${approval?.id}`)).toBe(true);
        await page.screenshot({ path: await artifactPath(`admin-dashboard-${width}.png`), fullPage: true });

        await page.goto(`${base}/admin/runs`);
        expect(await page.locator(`tr[data-run="${runId}"]`).count()).toBe(1);
        expect(await widths(page)).toSatisfy(({ scroll, inner }) => scroll <= inner);
        await page.screenshot({ path: await artifactPath(`admin-runs-${width}.png`), fullPage: true });

        await page.goto(`${base}/admin/runs/${runId}`);
        expect(await widths(page)).toSatisfy(({ scroll, inner }) => scroll <= inner);
        expect(await onScreen(page, "#run-cancel")).toBe(true);
        expect(await onScreen(page, "#run-rerun")).toBe(true);
        await page.screenshot({ path: await artifactPath(`admin-run-${width}.png`), fullPage: true });

        // A cancelled run offers retry instead of cancel: on screen too.
        await page.goto(`${base}/admin/runs/${cancelledRunId}`);
        expect(await onScreen(page, "#run-retry")).toBe(true);
        expect(await onScreen(page, "#run-rerun")).toBe(true);
        expect(await widths(page)).toSatisfy(({ scroll, inner }) => scroll <= inner);
      } finally {
        await page.context().close();
      }
    }, 60_000);
  });
}
