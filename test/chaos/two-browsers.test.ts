import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callKeyOf } from "../../src/agent/run/approval-hash.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import { launchChromium } from "../helpers/browser.js";
import { jobStates, repeated, waitAllCompleted, waitFor } from "../helpers/chaos.js";
import { approvalsByRun, type ChaosStack, linkInMail, startChaosStack } from "../helpers/chaos-stack.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";

/**
 * Scenario e: two approvers open their own links of the same request in two headless Chromium
 * contexts and press at the same moment — alice Approve, bob Deny. Exactly one decision wins, the
 * other page says the request is no longer pending, and the run resumes once.
 */

const RUNS = 5;
let stack: ChaosStack;
let smtp: SmtpCapture;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  stack = await startChaosStack({
    approvers: ["alice", "bob"],
    smtpPort: smtp.port,
    script: [{ tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] }, { content: "done" }],
  });
  browser = await launchChromium();
  await stack.startHttp();
  await stack.startWorker();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await smtp?.close();
});

describe("chaos: two browsers decide the same request at once", () => {
  it("one decision wins, the other sees it already decided, the run resumes once", async () => {
    const started = Date.now();
    const payloads = Array.from({ length: RUNS }, () => testPayload());
    for (const p of payloads) await enqueueAgentRun(stack.queue, p);
    const byRun = await waitFor(
      "every run to register its approval",
      async () => {
        const map = await approvalsByRun(stack.store);
        return payloads.every((p) => map.get(p.runId)?.length === 1) ? map : undefined;
      },
      30_000,
    );
    const winners = { approve: 0, deny: 0 };
    for (const p of payloads) {
      const request = byRun.get(p.runId)![0]!;
      const linkOf = async (who: string) =>
        linkInMail(
          await smtp.waitForMail(
            (m) =>
              (m.text ?? "").includes(request.id) && m.to !== undefined && JSON.stringify(m.to).includes(who),
            20_000,
          ),
          stack.publicUrl,
        );
      const [aliceLink, bobLink] = [await linkOf("alice"), await linkOf("bob")];
      const alice = await browser.newContext();
      const bob = await browser.newContext();
      try {
        const [alicePage, bobPage] = [await alice.newPage(), await bob.newPage()];
        await alicePage.goto(aliceLink);
        await bobPage.goto(bobLink);
        // Both forms are loaded; both buttons are pressed in the same tick.
        const [aliceResponse, bobResponse] = await Promise.all([
          alicePage.waitForResponse((r) => r.url().endsWith("/decision")),
          bobPage.waitForResponse((r) => r.url().endsWith("/decision")),
          alicePage.click("#approve"),
          bobPage.click("#deny"),
        ]);
        const statuses = [aliceResponse.status(), bobResponse.status()].sort();
        expect(statuses, `run ${p.runId}`).toEqual([200, 409]);
        const loser = aliceResponse.status() === 409 ? alicePage : bobPage;
        await loser.waitForLoadState();
        expect(await loser.textContent("h1")).toBe("This request is no longer pending");
        expect(await loser.textContent("#notice")).toBe("This request is no longer pending.");
        winners[aliceResponse.status() === 200 ? "approve" : "deny"]++;
      } finally {
        await alice.close();
        await bob.close();
      }
    }
    const ids = payloads.map((p) => p.runId);
    await waitAllCompleted(stack.queue, ids, 60_000);
    const after = await approvalsByRun(stack.store);
    const counts = await stack.counts();
    expect(repeated(counts)).toEqual([]);
    let ran = 0;
    for (const p of payloads) {
      const [request] = after.get(p.runId)!;
      expect(request!.decisions, `one decision on ${request!.id}`).toHaveLength(1);
      const approved = request!.status === "approved";
      expect(request!.status).toBe(approved ? "approved" : "denied");
      // The exec call's only side effect: once when approved, never when denied.
      expect(counts.get(callKeyOf(request!.idempotencyKey)) ?? 0).toBe(approved ? 1 : 0);
      if (approved) ran++;
    }
    expect(ran).toBe(winners.approve);
    expect([...(await jobStates(stack.queue, ids)).values()].every((s) => s === "completed")).toBe(true);
    const entries = await stack.verifyAudit();
    console.info(
      `[chaos two-browsers] ${RUNS} races: approve won ${winners.approve}, deny won ${winners.deny}; ` +
        `${entries} audit entries verified; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
