import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callKeyOf } from "../../src/agent/run/approval-hash.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import { jobStates, repeated, waitAllCompleted, waitFor } from "../helpers/chaos.js";
import {
  approvalsByRun,
  type ChaosStack,
  clickOverHttp,
  linkInMail,
  startChaosStack,
} from "../helpers/chaos-stack.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { startTcpGate, type TcpGate } from "../helpers/tcp-gate.js";

/**
 * Scenario c: the SMTP server is down (its port refuses connections) when approval mails must go
 * out. The requests stay pending and unsent, the runs stay parked, the worker's sweeper sends the
 * mails once SMTP is back (one mail per request, not one per try), and approving through the
 * mailed link resumes each run once.
 */

const RUNS = 3;
let stack: ChaosStack;
let smtp: SmtpCapture;
let gate: TcpGate;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  gate = await startTcpGate(smtp.port);
  stack = await startChaosStack({
    approvers: ["alice"],
    smtpPort: gate.port,
    script: [
      { tool_calls: [{ name: "write_file", arguments: { path: "before.txt", content: "before" } }] },
      { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
      { tool_calls: [{ name: "write_file", arguments: { path: "after.txt", content: "after" } }] },
      { content: "done" },
    ],
  });
  await stack.startHttp();
});

afterAll(async () => {
  await stack?.stop();
  await gate?.close();
  await smtp?.close();
});

describe("chaos: SMTP down when approval mails must go out", () => {
  it("requests stay pending and parked, mails go out when SMTP is back, approving resumes each run once", async () => {
    const started = Date.now();
    const closedAt = Date.now();
    await gate.close();
    const worker = await stack.startWorker({ LOG_LEVEL: "warn" });
    const payloads = Array.from({ length: RUNS }, () => testPayload());
    for (const p of payloads) await enqueueAgentRun(stack.queue, p);
    const ids = payloads.map((p) => p.runId);
    // Every run reaches its exec call and parks; every mail fails after its backoff retries.
    await waitFor(
      "every notification to fail",
      async () =>
        (worker.output().match(/approval notification failed; will retry/g) ?? []).length >= RUNS
          ? true
          : undefined,
      120_000,
    );
    const parked = await approvalsByRun(stack.store);
    for (const p of payloads) {
      const [request] = parked.get(p.runId) ?? [];
      expect(request?.status, `request of ${p.runId}`).toBe("pending");
      expect(request?.notifiedAt).toBeNull();
    }
    expect(new Set(await stack.store.unsentIds())).toEqual(
      new Set(payloads.map((p) => parked.get(p.runId)![0]!.id)),
    );
    // The failed mail is logged while a run may still be moving to delayed: wait for the state.
    await expect
      .poll(async () => [...(await jobStates(stack.queue, ids)).values()], { timeout: 30_000, interval: 100 })
      .toEqual(ids.map(() => "delayed"));
    expect(smtp.messages).toHaveLength(0);

    await gate.open();
    const reopenedAt = Date.now();
    // The sweeper (every 30 s) sends what is unsent.
    const mails = await Promise.all(
      payloads.map((p) =>
        smtp.waitForMail((m) => (m.text ?? "").includes(parked.get(p.runId)![0]!.id), 75_000),
      ),
    );
    const deliveredAfterMs = Date.now() - reopenedAt;
    // Still parked until someone decides.
    expect([...(await jobStates(stack.queue, ids)).values()]).toEqual(ids.map(() => "delayed"));
    for (const mail of mails) {
      const click = await clickOverHttp(linkInMail(mail, stack.publicUrl), "approve");
      expect(click.status).toBe(200);
    }
    await waitAllCompleted(stack.queue, ids, 60_000);

    const after = await approvalsByRun(stack.store);
    const counts = await stack.counts();
    expect(repeated(counts)).toEqual([]);
    // write, exec, write: three side effects per run, each once.
    expect(counts.size).toBe(RUNS * 3);
    for (const p of payloads) {
      const [request] = after.get(p.runId)!;
      expect(request!.status).toBe("approved");
      expect(request!.decisions).toHaveLength(1);
      expect(request!.notifiedAt).not.toBeNull();
      expect(counts.get(callKeyOf(request!.idempotencyKey))).toBe(1);
      // One mail per request, however many tries failed before.
      expect(smtp.messages.filter((m) => (m.text ?? "").includes(request!.id))).toHaveLength(1);
    }
    expect(await stack.store.unsentIds()).toEqual([]);
    const entries = await stack.verifyAudit();
    console.info(
      `[chaos smtp-down] ${RUNS} runs parked; SMTP down ${((reopenedAt - closedAt) / 1000).toFixed(1)} s ` +
        `(every inline retry failed); mails delivered ${(deliveredAfterMs / 1000).toFixed(1)} s after SMTP came back; ` +
        `${entries} audit entries verified; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
