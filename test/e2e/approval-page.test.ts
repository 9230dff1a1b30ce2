import type { Redis } from "ioredis";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApprovalNotifications,
  type ApprovalRecord,
  ApprovalStore,
  EmailNotifier,
} from "../../src/approvals/index.js";
import { createHttpServer } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { artifactPath, launchChromium } from "../helpers/browser.js";
import { freePort } from "../helpers/free-port.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Approvals and denials as the worker's promoter reads them to wake runs: the store's events
 * stream (which also carries cancellations and expiries, left out here).
 */
async function decidedOnStream(store: ApprovalStore): Promise<{ id: string; status: string }[]> {
  return (await store.readEvents("0"))
    .filter((e) => e.status === "approved" || e.status === "denied")
    .map((e) => ({ id: e.id, status: e.status }));
}

/**
 * The approver's whole path with real parts: a registered request → the mail at a real SMTP server
 * → the link opened in headless Chromium → a click → the decision in Redis and on its events stream.
 */

let redis: Redis;
let smtp: SmtpCapture;
let browser: Browser;
let app: ReturnType<typeof createHttpServer>;
let store: ApprovalStore;
let notifications: ApprovalNotifications;
let publicUrl: string;
const prefix = uniquePrefix("e2eappr");
let n = 0;

beforeAll(async () => {
  redis = testRedisClient();
  smtp = await startSmtpCapture();
  browser = await launchChromium();
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  const logger = createLogger({ level: "silent", format: "json" });
  store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: {
      waitTimeoutMs: 3_600_000,
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: "bob@example.test" },
      ],
    },
  });
  notifications = new ApprovalNotifications({
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
  app = createHttpServer({
    redis,
    logger,
    approvals: { store, publicUrl },
  });
  await app.listen({ host: "127.0.0.1", port });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await smtp?.close();
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function parkedCall(command: string): Promise<ApprovalRecord> {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: `trace-${n}`,
    idempotencyKey: `key-${n}`,
    tool: "exec",
    args: { command },
    risk: "exec",
    flags: ["soft:rm-recursive"],
    reason: "recursive delete needs a person",
    agent: "nightly-cleanup",
    channel: "cron",
    scheduleId: "nightly-02",
  });
  expect((await notifications.notify(record.id)).delivered).toEqual(["email:alice", "email:bob"]);
  return record;
}

async function linkFor(record: ApprovalRecord, to: string): Promise<string> {
  const mail = await smtp.waitForMail(
    (m) => (m.text?.includes(record.id) ?? false) && JSON.stringify(m.to).includes(to),
  );
  const link = new RegExp(`${publicUrl}/approvals/${record.id}\\?t=[A-Za-z0-9_-]{43}`).exec(
    mail.text ?? "",
  )?.[0];
  expect(link, "the mail carries a personal link").toBeDefined();
  return link!;
}

describe("approval page in headless Chromium", () => {
  it("approves from the mailed link: the store shows alice's approval and the decision is on the events stream", async () => {
    const record = await parkedCall("rm -rf ./build/<tmp>");
    const link = await linkFor(record, "alice@example.test");
    const scannerPrefetch = await fetch(link, { headers: { "user-agent": "MailScanner/2.0" } });
    expect(scannerPrefetch.status).toBe(200);
    expect((await store.get(record.id))?.status).toBe("pending");

    const context = await browser.newContext();
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on("console", (msg) => {
      if (/Content Security Policy/i.test(msg.text())) cspErrors.push(msg.text());
    });
    await page.goto(link);
    await expect.poll(() => page.locator("#args").textContent()).toContain("rm -rf ./build/<tmp>");
    expect(await page.locator("#args-hash").textContent()).toBe(record.argsHash);
    const approveColour = await page.evaluate(
      "getComputedStyle(document.getElementById('approve')).backgroundColor",
    );
    expect(approveColour, "the stylesheet loads under the CSP").toBe("rgb(31, 122, 51)");
    await page.screenshot({ path: await artifactPath("approval-page.png"), fullPage: true });

    await page.fill("#comment", "checked the path");
    await Promise.all([page.waitForURL(`**/approvals/${record.id}/decision`), page.click("#approve")]);
    expect(await page.locator("#notice").textContent()).toContain("Your decision (approve) was recorded");
    await page.screenshot({ path: await artifactPath("approval-decided.png"), fullPage: true });
    expect(cspErrors).toEqual([]);
    await context.close();

    const after = (await store.get(record.id))!;
    expect(after.status).toBe("approved");
    expect(after.decisions).toEqual([
      expect.objectContaining({
        by: "alice",
        decision: "approve",
        kind: "once",
        comment: "checked the path",
        via: "link",
      }),
    ]);
    expect((await decidedOnStream(store)).map((r) => [r.id, r.status])).toContainEqual([
      record.id,
      "approved",
    ]);
    const agents = after.fetches.map((f) => f.userAgent);
    expect(agents.some((ua) => ua.includes("MailScanner"))).toBe(true);
    expect(agents.some((ua) => ua.includes("HeadlessChrome") || ua.includes("Chrome"))).toBe(true);
  });

  it("denies from the page, and bob's link then shows who decided and when", async () => {
    const record = await parkedCall("curl http://10.0.0.5/admin");
    const aliceLink = await linkFor(record, "alice@example.test");
    const bobLink = await linkFor(record, "bob@example.test");
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(aliceLink);
    await Promise.all([page.waitForURL(`**/approvals/${record.id}/decision`), page.click("#deny")]);
    expect(await page.locator("#status").textContent()).toBe("denied");
    await page.goto(bobLink);
    expect(await page.locator("h1").textContent()).toBe("This request is no longer pending");
    expect(await page.locator("#decisions").textContent()).toMatch(/alice denied at \d{4}-\d\d-\d\dT/);
    expect(await page.locator("#approve").count()).toBe(0);
    await context.close();
    expect((await store.get(record.id))?.status).toBe("denied");
  });
});

describe("browser helper", () => {
  it("fails with the install command, instead of skipping, when Chromium is missing", async () => {
    await expect(launchChromium("/nonexistent/chromium")).rejects.toThrow("apt-get install -y chromium");
  });
});
