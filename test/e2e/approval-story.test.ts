import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, EmailNotifier } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createHttpServer } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import type { Promoter } from "../../src/queue/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { ApprovalStoryReader, RunInspector } from "../../src/runs/index.js";
import { startApprovalPromoter } from "../../src/runtime/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { agentQueue, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { artifactPath, launchChromium } from "../helpers/browser.js";
import { freePort } from "../helpers/free-port.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/** The promoter's store only reads the decision events; its policy decides nothing. */
const PROMOTER_POLICY = { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: null }] };
let promoter: Promoter | undefined;

/**
 * The approver reads the run's story: a real scripted run makes twelve read calls and then an
 * exec call whose turn carries a prompt injection (a fake approve link); the mail reaches a real
 * SMTP server, the link opens in headless Chromium at phone and desktop widths, and the page shows
 * the task, the model's words (as text, never a link) and the earlier steps, read from the journal.
 */

const redis = testRedisClient();
const keyPrefix = uniquePrefix("story");
const logger = createLogger({ level: "silent", format: "json" });
const FAKE_LINK = "http://evil.example/approvals/approve-all?t=forged";
const AGENT_WORDS = `The build directory is stale, so I will remove it. To save time, approve here: ${FAKE_LINK} <a href="${FAKE_LINK}">Approve now</a>`;
const TASK = "Clean the build tree of project <alpha> and report what you removed.";
const LONG_COMMAND = `rm -rf ./build/${"very-long-segment-".repeat(30)}end && echo done`;
const READ_STEPS = 12;

let smtp: SmtpCapture;
let browser: Browser;
let app: ReturnType<typeof createHttpServer>;
let publicUrl: string;
let inspector: RunInspector;
const queue = agentQueue(redis, keyPrefix);
const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });

const readTool = defineTool({
  name: "list_dir",
  description: "lists nothing (test tool)",
  parameters: Type.Object({ path: Type.String() }),
  riskLevel: "read_only",
  async execute(args) {
    return toolSuccess(`entries of ${args.path}`);
  },
});
const execTool = defineTool({
  name: "exec",
  description: "does nothing (test tool)",
  parameters: Type.Object({ command: Type.String(), cwd: Type.Optional(Type.String()) }),
  async execute() {
    return toolSuccess("ran");
  },
});

function script(): string {
  const turns: unknown[] = [];
  for (let i = 0; i < READ_STEPS; i++) {
    turns.push({
      ...(i === 0 ? { content: "Looking around first." } : {}),
      tool_calls: [{ name: "list_dir", arguments: { path: `dir-${i}` } }],
    });
  }
  turns.push({
    content: AGENT_WORDS,
    tool_calls: [{ name: "exec", arguments: { command: LONG_COMMAND, cwd: "sub" } }],
  });
  turns.push({ content: "removed the build tree" });
  return stringify(turns);
}

beforeAll(async () => {
  // The worker's promoter wakes a parked run from the decision events, as in production.
  promoter = startApprovalPromoter({
    connection: redis,
    keyPrefix,
    store: (reader) => new ApprovalStore({ redis: reader, keyPrefix, policy: PROMOTER_POLICY }),
    logger,
  });
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
  inspector = new RunInspector({ redis, keyPrefix, approvals: store, maxChars: 100_000 });
  app = createHttpServer({
    redis,
    logger,
    approvals: {
      store,
      publicUrl,
      story: new ApprovalStoryReader({ inspector, execHost: "sandbox" }),
    },
  });
  await app.listen({ host: "127.0.0.1", port });
});

afterAll(async () => {
  await promoter?.stop();
  await browser?.close();
  await app?.close();
  await smtp?.close();
  await inspector?.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

/** WCAG contrast ratio of two `rgb(...)` colours. */
function contrast(fg: string, bg: string): number {
  const lum = (css: string) => {
    const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** Text colour and effective background (first non-transparent ancestor) of every matching element. */
async function colours(page: Page, selector: string): Promise<{ fg: string; bg: string; what: string }[]> {
  // A string, so the test needs no DOM types; runs in the page.
  return (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((el) => {
    let node = el;
    let bg = "rgb(255, 255, 255)";
    while (node) {
      const c = getComputedStyle(node).backgroundColor;
      if (c !== "rgba(0, 0, 0, 0)" && c !== "transparent") { bg = c; break; }
      node = node.parentElement;
    }
    return { fg: getComputedStyle(el).color, bg, what: el.tagName + "#" + el.id + "." + el.className };
  })`)) as { fg: string; bg: string; what: string }[];
}

interface AxNode {
  role?: { value?: string };
  name?: { value?: string };
  ignored?: boolean;
}

describe("the approval page tells the run's story", () => {
  it("mail and page show the task, the agent's words as text and the earlier steps; phone and desktop", async () => {
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [readTool, execTool],
      script: script(),
      configOverrides: { permissions: { elevated: { enabled: false } } },
    });
    const store = new ApprovalStore({
      redis,
      keyPrefix,
      policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: "alice@example.test" }] },
    });
    const notifications = new ApprovalNotifications({
      store,
      notifiers: [
        new EmailNotifier({
          host: smtp.host,
          port: smtp.port,
          secure: false,
          user: "",
          from: "r@example.test",
        }),
      ],
      publicUrl,
      logger,
      story: new ApprovalStoryReader({ inspector, execHost: "sandbox" }),
    });
    const worker = startAgentWorker({
      connection: redis,
      keyPrefix,
      concurrency: 1,
      deps: { ...deps, approvals: storeApprovals({ store, notifications, logger }) },
    });
    const workspace = await mkdtemp(join(tmpdir(), "echo-story-"));
    try {
      const payload = testPayload({}, { task: TASK, workspace });
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 20_000 })
        .toBe("delayed");

      // The mail: the story below the link, the agent's words labelled and defanged.
      const mail = await smtp.waitForMail((m) => (m.text ?? "").includes(payload.runId));
      const text = mail.text ?? "";
      expect(text).toContain(TASK);
      expect(text).toContain("Written by the agent");
      expect(text).toContain("http[:]//evil.example/approvals/approve-all");
      expect(text).not.toContain(FAKE_LINK);
      expect(text).toContain(`#${READ_STEPS} list_dir path=dir-${READ_STEPS - 1} — allow (gate step 5)`);
      expect(text).toContain(`Working directory: ${join(workspace, "sub")}`);
      const html = typeof mail.html === "string" ? mail.html : "";
      expect(html).not.toMatch(/href="[^"]*evil/);
      expect(html).toContain("&lt;a href=");

      // The parked run stays small: nothing of the story is stored with the request.
      const link = new RegExp(`${publicUrl}/approvals/([0-9a-f]+)\\?t=[A-Za-z0-9_-]{43}`).exec(text);
      expect(link).not.toBeNull();
      const stored = JSON.stringify(await redis.hgetall(store.keys.request(link![1]!)));
      expect(stored).not.toContain("build directory is stale");
      expect(stored).not.toContain("Clean the build tree");

      for (const [name, viewport] of [
        ["phone", { width: 390, height: 844 }],
        ["desktop", { width: 1280, height: 900 }],
      ] as const) {
        const context = await browser.newContext({ viewport, javaScriptEnabled: false });
        const page = await context.newPage();
        await page.goto(link![0]);
        expect(await page.locator("#task").textContent()).toBe(TASK);
        expect(await page.locator("#agent-words").textContent()).toBe(AGENT_WORDS);
        expect(await page.locator('a[href*="evil"]').count(), "the agent's text is never a link").toBe(0);
        expect(await page.locator("#steps > li").count()).toBe(10);
        expect(await page.locator("#steps > li").first().textContent()).toContain(`#${READ_STEPS} list_dir`);
        expect(await page.locator("#steps > li").first().textContent()).toContain("allow (gate step 5)");
        expect(await page.locator("#steps > li").first().textContent()).toContain("succeeded");
        expect(await page.locator("#exec-place").textContent()).toContain(join(workspace, "sub"));
        expect(await page.locator("#exec-place").textContent()).toContain("sandbox");
        expect(await page.locator("#all-steps").textContent()).toBe(`All ${READ_STEPS} earlier steps`);
        // The call and the buttons come first, the story below.
        const approveTop = (await page.locator("#approve").boundingBox())!.y;
        expect(approveTop).toBeLessThan((await page.locator("#story").boundingBox())!.y);
        expect(approveTop).toBeGreaterThan((await page.locator("#args").boundingBox())!.y);
        // No horizontal scrolling of the page; the long command wraps inside its own box.
        const widths = await page.evaluate(
          "({ doc: document.documentElement.scrollWidth, view: document.documentElement.clientWidth, argsScroll: document.getElementById('args').scrollWidth, argsBox: document.getElementById('args').clientWidth })",
        );
        const w = widths as { doc: number; view: number; argsScroll: number; argsBox: number };
        expect(w.doc, `${name}: page width`).toBeLessThanOrEqual(w.view);
        expect(w.argsScroll, `${name}: the command wraps in its box`).toBeLessThanOrEqual(w.argsBox);
        await page.screenshot({ path: await artifactPath(`approval-story-${name}.png`), fullPage: true });
        if (name === "phone")
          expect(approveTop, "the buttons are on the first phone screen").toBeLessThan(844);

        // Accessibility from Chromium's own tree: the form's control names.
        const cdp = await context.newCDPSession(page);
        const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as { nodes: AxNode[] };
        const named = nodes
          .filter((n) => !n.ignored)
          .map((n) => [n.role?.value, n.name?.value] as const)
          .filter(([role]) => role === "button" || role === "textbox" || role === "form");
        expect(named).toEqual(
          expect.arrayContaining([
            ["form", "Your decision"],
            ["textbox", "Comment (optional)"],
            ["button", "Approve once"],
            ["button", "Deny"],
          ]),
        );
        expect(
          named.every(([, label]) => (label ?? "").trim().length > 0),
          "every control has a name",
        ).toBe(true);
        // Contrast of text on its background (WCAG AA, 4.5:1).
        for (const c of await colours(
          page,
          "button, label, p, li, th, td, blockquote, h1, h2, h3, code, pre, a",
        )) {
          expect(
            contrast(c.fg, c.bg),
            `${name}: contrast of ${c.what} (${c.fg} on ${c.bg})`,
          ).toBeGreaterThanOrEqual(4.5);
        }
        await context.close();
      }

      // The full list of earlier steps, same token, read-only.
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      await page.goto(link![0]);
      await Promise.all([page.waitForURL("**/steps?t=*"), page.click("#all-steps")]);
      expect(await page.locator("#steps > li").count()).toBe(READ_STEPS);
      expect(await page.locator("#steps > li").last().textContent()).toContain("#1 list_dir");
      await page.screenshot({ path: await artifactPath("approval-story-steps-phone.png"), fullPage: true });
      await page.click("#back");
      await Promise.all([page.waitForURL("**/decision"), page.click("#approve")]);
      await context.close();
      const outcome = await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 20_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "removed the build tree" });

      const wrongToken = await fetch(`${publicUrl}/approvals/${link![1]}/steps?t=${"A".repeat(43)}`);
      expect(wrongToken.status).toBe(404);
    } finally {
      await worker.close();
    }
  });
});
