import { access, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createHttpServer, OperatorCredentials } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { RunnerMetrics } from "../../src/metrics/index.js";
import type { Promoter } from "../../src/queue/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { RunInspector } from "../../src/runs/index.js";
import { startApprovalPromoter } from "../../src/runtime/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { ScheduleService, ScheduleStore } from "../../src/scheduler/index.js";
import { agentQueue, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { artifactPath, launchChromium } from "../helpers/browser.js";
import { freePort } from "../helpers/free-port.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/** The promoter's store only reads the decision events; its policy decides nothing. */
const PROMOTER_POLICY = { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: null }] };
let promoter: Promoter | undefined;

/**
 * The /admin dashboard in headless Chromium against real parts: a scripted run parks on an exec
 * call, an operator signs in with their own token, sees the pending approval, approves it from the
 * dashboard, and the run resumes and finishes; without a session or with a wrong token nothing opens.
 */

const TOKEN = "admin-dashboard-token-0123456789-abcdefgh";
const operators = new OperatorCredentials([{ id: "Olga Operator", token: TOKEN }]);
const redis = testRedisClient();
const keyPrefix = uniquePrefix("admin");
const logger = createLogger({ level: "silent", format: "json" });
const queue = agentQueue(redis, keyPrefix);
const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
const store = new ApprovalStore({
  redis,
  keyPrefix,
  policy: {
    waitTimeoutMs: 3_600_000,
    approvers: [
      { id: "alice", email: null },
      { id: "Olga Operator", email: null },
    ],
  },
});
const inspector = new RunInspector({ redis, keyPrefix, approvals: store });
const schedules = new ScheduleService({ store: new ScheduleStore({ redis, keyPrefix }) });
let browser: Browser;
let app: ReturnType<typeof createHttpServer>;
let base: string;
let dir: string;

const markerExec = defineTool({
  name: "exec",
  description: "creates a marker file (test tool)",
  parameters: Type.Object({ command: Type.String() }),
  async execute(args) {
    await writeFile(join(dir, args.command.replace(/^touch /, "")), "ran\n");
    return toolSuccess(`ran ${args.command}`);
  },
});

beforeAll(async () => {
  // The worker's promoter wakes a parked run from the decision events, as in production.
  promoter = startApprovalPromoter({
    connection: redis,
    keyPrefix,
    store: (reader) => new ApprovalStore({ redis: reader, keyPrefix, policy: PROMOTER_POLICY }),
    logger,
  });
  dir = await mkdtemp(join(tmpdir(), "echo-admin-"));
  browser = await launchChromium();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = createHttpServer({
    redis,
    logger,
    operators,
    admin: {
      keyPrefix,
      publicUrl: base,
      approvals: store,
      runs: inspector,
      queues: [queue],
      schedules,
    },
  });
  await app.listen({ host: "127.0.0.1", port });
});

afterAll(async () => {
  await promoter?.stop();
  await browser?.close();
  await app?.close();
  await inspector.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

async function parkedRun(marker: string) {
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [markerExec],
    script: stringify([
      { tool_calls: [{ name: "exec", arguments: { command: `touch ${marker}` } }] },
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
    // As the worker part does: parks are marked, so the queue table tells parked from delayed.
    metrics: new RunnerMetrics({ redis, keyPrefix, logger }),
  });
  const payload = testPayload();
  await enqueueAgentRun(queue, payload);
  await expect
    .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
    .toBe("delayed");
  const [request] = (await store.list({ status: "pending" })).filter((r) => r.runId === payload.runId);
  expect(request).toBeDefined();
  return { worker, payload, request: request! };
}

async function signIn(token: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/admin`);
  expect(new URL(page.url()).pathname).toBe("/admin/login");
  await page.fill("#token", token);
  const [response] = await Promise.all([page.waitForNavigation(), page.click("#sign-in")]);
  return { context, page, status: response?.status() };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe("/admin dashboard", () => {
  it("without a session: pages redirect to the sign-in form, posts are refused with 401", async () => {
    const res = await fetch(`${base}/admin`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/admin/login");
    const run = await fetch(`${base}/admin/runs/x`, { redirect: "manual" });
    expect(run.status).toBe(303);
    const post = await fetch(`${base}/admin/approvals/${"0".repeat(32)}/decision`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "decision=approve&csrf=x",
      redirect: "manual",
    });
    expect(post.status).toBe(401);
    const forged = await fetch(`${base}/admin`, {
      headers: { cookie: "echo_admin=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      redirect: "manual",
    });
    expect(forged.status).toBe(303);
  });

  it("refuses a wrong token and sets no session", async () => {
    const { context, page, status } = await signIn("not-the-token");
    expect(status).toBe(401);
    expect(await page.textContent("#login-error")).toContain("belongs to no operator");
    expect((await context.cookies()).filter((c) => c.name === "echo_admin")).toEqual([]);
    await page.goto(`${base}/admin`);
    expect(new URL(page.url()).pathname).toBe("/admin/login");
    await context.close();
  });

  it("signs in with the token, shows the parked run's approval, approves it, and the run finishes", async () => {
    const { worker, payload, request } = await parkedRun("dashboard.txt");
    const schedule = await schedules.create(
      {
        v: 1,
        id: "nightly-report",
        cron: "30 2 * * *",
        timezone: "UTC",
        agent: { model: "scripted", task: "write the report", maxSteps: 5, workspace: dir },
        owner: "ann",
        source: { kind: "cronjob" },
      },
      { approvalSource: "human", approver: "bob" },
    );
    const { context, page, status } = await signIn(TOKEN);
    try {
      expect(status).toBe(200);
      expect(await page.textContent("#operator-name")).toBe("Olga Operator");
      const cookie = (await context.cookies()).find((c) => c.name === "echo_admin");
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/admin" });
      expect(cookie?.value).not.toContain(TOKEN);

      const row = page.locator(`#approval-${request.id}`);
      expect(await row.textContent()).toContain("touch dashboard.txt");
      expect(await page.textContent('#queues td[data-state="parked"]')).toBe("1");
      expect(await page.textContent(`tr[data-run="${payload.runId}"] .outcome`)).toBe("parked");
      const scheduleRow = await page.textContent("#schedules");
      expect(scheduleRow).toContain("nightly-report");
      expect(scheduleRow).toContain(new Date(schedule.nextTick!).toISOString().replace(".000Z", "Z"));
      await page.screenshot({ path: await artifactPath("admin-dashboard.png"), fullPage: true });
      expect(await exists(join(dir, "dashboard.txt"))).toBe(false);

      await Promise.all([page.waitForNavigation(), page.click(`#approve-${request.id}`)]);
      expect(await page.textContent("#notice")).toContain("Approved");
      const outcome = await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 15_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "finished" });
      expect(await exists(join(dir, "dashboard.txt"))).toBe(true);
      expect((await store.get(request.id))?.decisions).toMatchObject([
        { decision: "approve", by: "Olga Operator", via: "api" },
      ]);

      await page.goto(`${base}/admin`);
      expect(await page.locator("#no-pending").count()).toBe(1);
      expect(await page.textContent(`tr[data-run="${payload.runId}"] .outcome`)).toBe("completed");
      await page.click(`tr[data-run="${payload.runId}"] a`);
      const audit = await page.textContent("#audit");
      expect(audit).toContain("ask at step 11");
      expect(audit).toContain("success in");
      expect(audit).toContain("Olga Operator");
      await page.screenshot({ path: await artifactPath("admin-run.png"), fullPage: true });

      // Signing out ends the session everywhere: the old cookie opens nothing.
      await Promise.all([page.waitForNavigation(), page.click("#sign-out")]);
      const replay = await fetch(`${base}/admin`, {
        headers: { cookie: `echo_admin=${cookie!.value}` },
        redirect: "manual",
      });
      expect(replay.status).toBe(303);
    } finally {
      await context.close();
      await worker.close();
    }
  });

  it("does not decide with a session but without the form's CSRF secret", async () => {
    const { worker, request } = await parkedRun("csrf.txt");
    const { context } = await signIn(TOKEN);
    try {
      const cookie = (await context.cookies()).find((c) => c.name === "echo_admin");
      for (const body of ["decision=approve", "decision=approve&csrf=guess"]) {
        const res = await fetch(`${base}/admin/approvals/${request.id}/decision`, {
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
      expect((await store.get(request.id))?.status).toBe("pending");
      await store.cancelRun(request.runId);
    } finally {
      await context.close();
      await worker.close();
    }
  });

  it("answers an oversize or unreadable form with its 4xx status, not 500, and decides nothing", async () => {
    const { worker, request } = await parkedRun("oversize.txt");
    const { context } = await signIn(TOKEN);
    try {
      const cookie = (await context.cookies()).find((c) => c.name === "echo_admin");
      const post = (body: string, type: string) =>
        fetch(`${base}/admin/approvals/${request.id}/decision`, {
          method: "POST",
          headers: { cookie: `echo_admin=${cookie!.value}`, "content-type": type },
          body,
          redirect: "manual",
        });
      const big = await post(
        `decision=approve&comment=${"x".repeat(17 * 1024)}`,
        "application/x-www-form-urlencoded",
      );
      expect(big.status).toBe(413);
      expect(await big.text()).toContain("Form too large");
      const xml = await post("<decision>approve</decision>", "application/xml");
      expect(xml.status).toBe(415);
      expect((await store.get(request.id))?.status).toBe("pending");
      await store.cancelRun(request.runId);
    } finally {
      await context.close();
      await worker.close();
    }
  });

  it("throttles failed sign-ins per address (429 with retry-after), and the right token still signs in", async () => {
    const prefix = uniquePrefix("admin-rate");
    const limited = createHttpServer({
      redis,
      logger,
      operators,
      failureLimits: { perSource: 2 },
      admin: {
        keyPrefix: prefix,
        publicUrl: base,
        approvals: store,
        runs: inspector,
        queues: [queue],
        schedules,
      },
    });
    try {
      const codes: number[] = [];
      for (const token of ["guess-1", "guess-2", "guess-3"]) {
        const res = await limited.inject({
          method: "POST",
          url: "/admin/login",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams({ token }).toString(),
        });
        codes.push(res.statusCode);
        expect(res.headers["set-cookie"]).toBeUndefined();
        if (res.statusCode === 429) expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
      }
      // The address has used its attempts: the third guess is refused before any other work.
      expect(codes).toEqual([401, 401, 429]);
      // The right token is compared first and never refused because of failures.
      const right = await limited.inject({
        method: "POST",
        url: "/admin/login",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ token: TOKEN }).toString(),
      });
      expect(right.statusCode).toBe(303);
      expect(right.headers["set-cookie"]).toBeDefined();
    } finally {
      await limited.close();
      await deleteKeysWithPrefix(redis, prefix);
    }
  });

  it("is closed (503) when no operator has a token", async () => {
    const bare = createHttpServer({
      redis,
      logger,
      admin: {
        keyPrefix,
        publicUrl: base,
        approvals: store,
        runs: inspector,
        queues: [queue],
        schedules,
      },
    });
    for (const [method, url] of [
      ["GET", "/admin"],
      ["POST", "/admin/login"],
    ] as const) {
      const res = await bare.inject({
        method,
        url,
        ...(method === "POST" ? { payload: { operator: "x", token: "" } } : {}),
      });
      expect(res.statusCode).toBe(503);
    }
    await bare.close();
  });
});
