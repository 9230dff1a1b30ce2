import { afterAll, describe, expect, it } from "vitest";
import { testPayload } from "../../../test/helpers/agent-harness.js";
import { waitFor } from "../../../test/helpers/chaos.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { toolSuccess } from "../../catalog/index.js";
import type { GateDecision } from "../../gate/index.js";
import { AuditTrail, Journal } from "../../journal/index.js";
import { isRunnerError, ManualClock } from "../../shared/index.js";
import { auditTrailSink } from "../adapters/audit-sink.js";
import { claimAndRun } from "./claim-and-run.js";
import { DeferredCompletion } from "./deferred-completion.js";
import { ParkSignal } from "./park-signal.js";
import { MAX_LAG_MS, RunOutbox } from "./run-outbox.js";

const redis = testRedisClient();
const prefix = uniquePrefix("outbox");
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

function setup() {
  const clock = new ManualClock(1_700_000_000_000);
  const journal = new Journal({ redis, keyPrefix: prefix, clock });
  const trail = new AuditTrail({ redis, keyPrefix: prefix, clock });
  const audit = auditTrailSink(trail);
  const payload = testPayload();
  const outbox = new RunOutbox(audit, journal, payload.runId);
  const entry = audit.execution({
    payload,
    tool: "write_file",
    risk: "write",
    capabilities: ["fs.write"],
    result: toolSuccess("wrote"),
    durationMs: 3,
    approvalSource: "auto",
    idempotencyKey: "k1",
    replay: false,
    attempt: 1,
  });
  const executions = async () =>
    (await trail.readByTrace(payload.traceId)).filter((r) => r.entry.kind === "execution");
  const decisions = async () =>
    (await trail.readByTrace(payload.traceId)).filter((r) => r.entry.kind === "decision");
  const allow: GateDecision = {
    verdict: "allow",
    step: 11,
    stepName: "auto_approve",
    reason: "allowed",
    risk: "write",
    flagged: false,
    approvalSource: "auto",
  };
  const decision = audit.decisionEntry({
    payload,
    tool: "write_file",
    decision: allow,
    capabilities: ["fs.write"],
    idempotencyKey: "k1",
  });
  return { clock, journal, audit, payload, outbox, entry, executions, decisions, decision };
}

describe("RunOutbox", () => {
  it("stores the entry with the result, delivers it, and the next claim acknowledges it", async () => {
    const { journal, payload, outbox, entry, executions } = setup();
    const deferred = new DeferredCompletion(journal, payload.runId, "w1", outbox);
    await journal.claim({ runId: payload.runId, key: "k1", owner: "w1", leaseMs: 30_000 });
    outbox.stage("k1", entry);
    await deferred.defer("k1", { ok: true });
    await deferred.claim({ key: "model:1", leaseMs: 30_000 });
    await outbox.delivered();
    expect(await executions()).toHaveLength(1);
    expect((await journal.readRun(payload.runId)).outbox.has("k1")).toBe(true);
    // The next journal script carries the acknowledgement.
    await deferred.defer("model:1", { text: "next" });
    await deferred.flush();
    expect((await journal.readRun(payload.runId)).outbox.size).toBe(0);
  });

  it("a completion refused because another worker took the claim over still puts the execution on record", async () => {
    const { clock, journal, payload, outbox, entry, executions } = setup();
    const deferred = new DeferredCompletion(journal, payload.runId, "w1", outbox);
    await journal.claim({ runId: payload.runId, key: "k1", owner: "w1", leaseMs: 1_000 });
    // w1 stalls past its lease; w2 takes the call over.
    clock.advance(2_000);
    await journal.reclaim({ runId: payload.runId, key: "k1", owner: "w2", leaseMs: 30_000, attempt: 1 });
    outbox.stage("k1", entry);
    await deferred.defer("k1", { ok: true });
    const err = await deferred.claim({ key: "model:1", leaseMs: 30_000 }).catch((e: unknown) => e);
    expect(isRunnerError(err) && err.code).toBe("JOURNAL_CLAIM_LOST");
    // w1's tool ran: its execution is in the audit trail, though its result is not in the journal.
    expect(await executions()).toHaveLength(1);
    expect((await journal.readRun(payload.runId)).outbox.size).toBe(0);
  });

  it("settle fails when a delivery failed, and the entry stays in the journal for the next attempt", async () => {
    const { journal, payload, entry, audit } = setup();
    const failing = { ...audit, deliver: async () => Promise.reject(new Error("audit down")) };
    const outbox = new RunOutbox(failing, journal, payload.runId);
    const deferred = new DeferredCompletion(journal, payload.runId, "w1", outbox);
    await journal.claim({ runId: payload.runId, key: "k1", owner: "w1", leaseMs: 30_000 });
    outbox.stage("k1", entry);
    await deferred.defer("k1", { ok: true });
    await deferred.flush();
    await expect(outbox.settle()).rejects.toThrow("audit down");
    const left = (await journal.readRun(payload.runId)).outbox.get("k1");
    expect(left).toBe(entry.text);
    // What the next attempt reads back is the same entry.
    expect(audit.fromOutbox(payload.runId, "k1", left!)).toMatchObject({
      tool: "write_file",
      outcome: "success",
    });
  });

  it("stores a call's decision with its claim: in the journal before the call runs, in the trail once, after", async () => {
    const { journal, payload, outbox, decision, decisions } = setup();
    let seen: unknown;
    await claimAndRun({
      journal,
      runId: payload.runId,
      key: "k1",
      owner: "w1",
      leaseMs: 30_000,
      outbox,
      decision,
      onInDoubt: () => "fail",
      inDoubtFailure: () => null,
      parkInDoubt: async () => 0,
      produce: async () => {
        // The run waited for no audit write: the decision is on record in the journal only.
        seen = {
          stored: (await journal.readRun(payload.runId)).claimOutbox.get("k1"),
          inTrail: (await decisions()).length,
        };
        return { ok: true };
      },
    });
    expect(seen).toEqual({ stored: decision.text, inTrail: 0 });
    await outbox.settle();
    expect(await decisions()).toHaveLength(1);
    expect((await journal.readRun(payload.runId)).claimOutbox.size).toBe(0);
  });

  it("a long call's decision reaches the trail while it runs, within the outbox's lag bound", async () => {
    const { journal, payload, outbox, decision, decisions } = setup();
    const started = Date.now();
    let inTrailAfterMs = -1;
    await claimAndRun({
      journal,
      runId: payload.runId,
      key: "k1",
      owner: "w1",
      leaseMs: 30_000,
      outbox,
      decision,
      onInDoubt: () => "fail",
      inDoubtFailure: () => null,
      parkInDoubt: async () => 0,
      produce: async () => {
        // No journal script follows while this call runs: the decision goes out on its own.
        await waitFor(
          "the decision in the trail",
          async () => ((await decisions()).length ? true : undefined),
          5_000,
          10,
        );
        inTrailAfterMs = Date.now() - started;
        return { ok: true };
      },
    });
    expect(inTrailAfterMs).toBeGreaterThanOrEqual(0);
    expect(inTrailAfterMs).toBeLessThan(MAX_LAG_MS + 1_000);
    await outbox.settle();
    expect(await decisions()).toHaveLength(1);
  });

  it("a claim that does not take the key stores no decision: it goes to the trail before the run parks", async () => {
    const { journal, payload, outbox, decision, decisions } = setup();
    await journal.claim({ runId: payload.runId, key: "k1", owner: "w0", leaseMs: 30_000 });
    const run = claimAndRun({
      journal,
      runId: payload.runId,
      key: "k1",
      owner: "w1",
      leaseMs: 30_000,
      outbox,
      decision,
      onInDoubt: () => "fail",
      inDoubtFailure: () => null,
      parkInDoubt: async () => 0,
      produce: async () => ({ ok: true }),
    });
    await expect(run).rejects.toBeInstanceOf(ParkSignal);
    expect(await decisions()).toHaveLength(1);
    expect((await journal.readRun(payload.runId)).claimOutbox.size).toBe(0);
  });

  it("refuses a stored outbox entry that is not one (JOURNAL_CORRUPT naming the run and key)", () => {
    const { audit } = setup();
    for (const text of ["{", "{}", JSON.stringify({ d: "x", e: { kind: "decision" } })]) {
      let err: unknown;
      try {
        audit.fromOutbox("run-1", "k9", text);
      } catch (e) {
        err = e;
      }
      expect(isRunnerError(err) && err.code).toBe("JOURNAL_CORRUPT");
      expect(String((err as Error).message)).toContain('key "k9"');
    }
  });
});
