import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callKeyOf } from "../../src/agent/run/approval-hash.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import { chaosSeed, killHard, prng, repeated, waitAllCompleted, waitFor } from "../helpers/chaos.js";
import {
  approvalsByRun,
  type ChaosStack,
  type ClickResult,
  clickOverHttp,
  linkInMail,
  openLink,
  startChaosStack,
  submitForm,
} from "../helpers/chaos-stack.js";
import type { CliProcess } from "../helpers/cli-process.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { startTcpGate } from "../helpers/tcp-gate.js";

/**
 * Scenario d: the HTTP server (`echo-runner serve`, its own process) is SIGKILLed while approvers
 * click, and started again. A click that failed (connection refused or cut mid-request) is retried
 * by the person; every request is decided exactly once — a retry after a decision whose answer was
 * lost finds it already decided — and every run resumes once.
 */

const RUNS = 6;
const ROUNDS = 3;
let stack: ChaosStack;
let smtp: SmtpCapture;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  stack = await startChaosStack({
    approvers: ["alice"],
    smtpPort: smtp.port,
    script: [
      { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
      { tool_calls: [{ name: "write_file", arguments: { path: "after.txt", content: "after" } }] },
      { content: "done" },
    ],
  });
  await stack.startWorker();
});

afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
});

/** A person clicking until the page answers: a failed request is tried again after a pause. */
async function clickUntilAnswered(link: string, failures: { count: number }): Promise<ClickResult> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      return await clickOverHttp(link, "approve");
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`no page answered ${link} within 90 s: ${String(err)}`);
      failures.count++;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

const SCENARIO = "chaos http-restart";

describe("chaos: the HTTP server restarted while approvers click", () => {
  it("a failed click can be retried and decides once; no decision is lost or applied twice", async () => {
    const started = Date.now();
    const seed = chaosSeed(SCENARIO);
    const random = prng(seed);
    const payloads = Array.from({ length: RUNS }, () => testPayload());
    for (const p of payloads) await enqueueAgentRun(stack.queue, p);
    const ids = payloads.map((p) => p.runId);
    const parked = await waitFor(
      "every run to register its approval",
      async () => {
        const map = await approvalsByRun(stack.store);
        return payloads.every((p) => map.get(p.runId)?.length === 1) ? map : undefined;
      },
      60_000,
    );
    const httpPort = Number(new URL(stack.publicUrl).port);
    const links = await Promise.all(
      payloads.map(async (p) =>
        linkInMail(
          await smtp.waitForMail((m) => (m.text ?? "").includes(parked.get(p.runId)![0]!.id), 30_000),
          stack.publicUrl,
        ),
      ),
    );
    const failures = { count: 0 };
    const answers: ClickResult[] = [];
    let lostAnswers = 0;
    let server: CliProcess = await stack.startHttp();
    // Each round, a batch of approvers has the page open; they all press Approve at once and the
    // server is killed with POSTs in flight: some decisions are recorded and their answer lost, some
    // never arrive. The server starts again; each person clicks again until
    // the page answers.
    const perRound = Math.ceil(RUNS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      const batch = links.slice(round * perRound, (round + 1) * perRound);
      const forms = await Promise.all(batch.map((link) => openLink(link)));
      // The last round's answers are held back on the way (a gate in front of the server), so the
      // server decides but its answer dies with it.
      const gate = round === ROUNDS - 1 ? await startTcpGate(httpPort, { holdReplies: true }) : null;
      const posts = forms.map((form) => {
        if (!("action" in form)) return Promise.resolve(form);
        const via = gate
          ? { ...form, action: new URL(form.action.pathname, `http://127.0.0.1:${gate.port}`) }
          : form;
        return submitForm(via, "approve").catch(() => null);
      });
      const requestIds = batch.map((link) => /approvals\/([0-9a-f]+)/.exec(link)?.[1] ?? "");
      const recorded = async (all: boolean) => {
        let n = 0;
        for (const id of requestIds) if ((await stack.store.get(id))?.decisions.length) n++;
        return (all ? n === requestIds.length : n > 0) ? true : undefined;
      };
      if (round === 0) {
        // Killed at a random moment: most POSTs never reach the decision.
        await new Promise((r) => setTimeout(r, Math.floor(random() * 15)));
      } else if (round === 1) {
        // Killed the moment Redis holds the first decision of the batch.
        await waitFor("a decision of the batch to be recorded", () => recorded(false), 30_000, 1);
      } else {
        // Every decision recorded and every answer still inside the dying server: all are lost.
        await waitFor("every decision of the batch to be recorded", () => recorded(true), 30_000, 5);
      }
      await killHard(server.child);
      await gate?.close();
      const first = await Promise.all(posts);
      server = await stack.startHttp();
      for (const [i, link] of batch.entries()) {
        const answer = first[i];
        if (answer) {
          answers.push(answer);
          continue;
        }
        failures.count++;
        const retried = await clickUntilAnswered(link, failures);
        if (!retried.body.includes("was recorded")) lostAnswers++;
        answers.push(retried);
      }
    }
    // Anyone clicking a used link again is told it was already decided.
    for (const link of links) {
      const again = await clickUntilAnswered(link, failures);
      expect(again.body).toContain("You have already decided with this link.");
    }
    // The last round's decisions were all recorded and all their answers lost.
    expect(lostAnswers).toBeGreaterThanOrEqual(perRound);
    await waitAllCompleted(stack.queue, ids, 60_000);

    for (const answer of answers) {
      expect([200, 409], answer.body.slice(0, 300)).toContain(answer.status);
    }
    const after = await approvalsByRun(stack.store);
    const counts = await stack.counts();
    expect(repeated(counts)).toEqual([]);
    expect(counts.size).toBe(RUNS * 2);
    for (const p of payloads) {
      const [request] = after.get(p.runId)!;
      expect(request!.status).toBe("approved");
      expect(request!.decisions, `decisions of ${request!.id}`).toHaveLength(1);
      expect(counts.get(callKeyOf(request!.idempotencyKey))).toBe(1);
    }
    // Exactly one final decision event per request: the promoter woke each job once.
    const events = await stack.store.readEvents("0", { count: 1000 });
    const perRequest = new Map<string, number>();
    for (const e of events) perRequest.set(e.id, (perRequest.get(e.id) ?? 0) + 1);
    expect([...perRequest.values()]).toEqual(payloads.map(() => 1));
    const entries = await stack.verifyAudit();
    console.info(
      `[chaos http-restart] seed ${seed}: ${ROUNDS} server kills with POSTs in flight; ${RUNS} clicks: ` +
        `${answers.filter((a) => a.body.includes("was recorded")).length} answered "recorded", ` +
        `${lostAnswers} recorded but the answer lost (the retry found it decided); ` +
        `${failures.count} failed tries retried; ${RUNS} decisions, each once; ${entries} audit entries verified; ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
