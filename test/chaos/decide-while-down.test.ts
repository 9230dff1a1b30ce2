import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callKeyOf } from "../../src/agent/run/approval-hash.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import {
  jobStates,
  killHard,
  type NodeProcess,
  repeated,
  waitAllCompleted,
  waitFor,
} from "../helpers/chaos.js";
import {
  approvalsByRun,
  type ChaosStack,
  clickOverHttp,
  linkInMail,
  startChaosStack,
} from "../helpers/chaos-stack.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";

/**
 * Scenario f (docs/RELIABILITY.md): every worker process is SIGKILLed while runs are parked,
 * and approvers decide through the mailed links on a separate `serve` process while no worker runs.
 * Nothing promotes the jobs then; when workers start again, each run resumes (the promoter reads on
 * from its stored position and scans parked runs at start) and its approved call runs exactly once —
 * long before the request's deadline (an hour) would have woken it.
 */

const RUNS = 3;
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
});

afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
});

describe("chaos: approvers decide while every worker is down", () => {
  it("when workers start again, every decided run resumes and its call runs exactly once", async () => {
    const started = Date.now();
    const workers: NodeProcess[] = [await stack.startWorker(), await stack.startWorker()];
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
    const mails = await Promise.all(
      payloads.map((p) =>
        smtp.waitForMail((m) => (m.text ?? "").includes(parked.get(p.runId)![0]!.id), 30_000),
      ),
    );
    await expect
      .poll(async () => [...(await jobStates(stack.queue, ids)).values()], { timeout: 30_000, interval: 100 })
      .toEqual(ids.map(() => "delayed"));

    for (const w of workers) await killHard(w.child);
    const http = await stack.startHttp();
    for (const mail of mails) {
      const click = await clickOverHttp(linkInMail(mail, stack.publicUrl), "approve");
      expect(click.status, click.body.slice(0, 300)).toBe(200);
    }
    await killHard(http.child);
    // Decided, and nobody to promote: the runs sleep toward their deadline an hour away.
    for (const p of payloads)
      expect((await stack.store.get(parked.get(p.runId)![0]!.id))?.status).toBe("approved");
    expect([...(await jobStates(stack.queue, ids)).values()]).toEqual(ids.map(() => "delayed"));
    expect(await stack.counts()).toEqual(new Map());

    const restartedAt = Date.now();
    await stack.startWorker();
    await stack.startWorker();
    await waitAllCompleted(stack.queue, ids, 60_000);
    const resumedAfterMs = Date.now() - restartedAt;

    const counts = await stack.counts();
    expect(repeated(counts)).toEqual([]);
    // exec, then write: two side effects per run, each once.
    expect(counts.size).toBe(RUNS * 2);
    for (const p of payloads) {
      const [request] = (await approvalsByRun(stack.store)).get(p.runId)!;
      expect(request!.status).toBe("approved");
      expect(request!.decisions).toHaveLength(1);
      expect(counts.get(callKeyOf(request!.idempotencyKey))).toBe(1);
      const job = await stack.queue.getJob(p.runId);
      expect(job?.returnvalue).toMatchObject({ status: "completed", finalAnswer: "done" });
    }
    const entries = await stack.verifyAudit();
    console.info(
      `[chaos decide-while-down] ${RUNS} runs parked, every worker SIGKILLed, ${RUNS} decided on a separate serve; ` +
        `resumed ${(resumedAfterMs / 1000).toFixed(1)} s after workers restarted (deadline 1 h away); ` +
        `each call once; ${entries} audit entries verified; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
