import { Job } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { AuditTrail, Journal } from "../../src/journal/index.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import {
  agentQueue,
  countExecutions,
  crashRunFiles,
  testPayload,
  writeScript,
} from "../helpers/agent-harness.js";
import { chaosSeed, killHard, prng, startNodeProcess, verifyChain, waitFor } from "../helpers/chaos.js";
import { testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * The run's outbox (src/agent/run/run-outbox.ts) under SIGKILL at its two exact windows: a call's
 * execution audit entry is stored in the journal with its result and appended to the audit trail
 * afterwards. A worker killed just before the append leaves it only in the journal; one killed
 * just after leaves it in both. Either way the resumed run ends with exactly one execution entry
 * per call, a chain that verifies, and no outbox field left in the journal.
 */

const redis = testRedisClient();
afterAll(() => redis.disconnect());

const STEPS = 4;

const WORKER = "test/helpers/agent-worker-main.ts";

async function outboxFields(runId: string, keyPrefix: string): Promise<string[]> {
  const fields = await redis.hkeys(new Journal({ redis, keyPrefix }).keyOf(runId));
  return fields.filter((f) => f.startsWith("o:") || f.startsWith("c:"));
}

async function executionKeys(traceId: string, keyPrefix: string): Promise<string[]> {
  const entries = await new AuditTrail({ redis, keyPrefix }).readByTrace(traceId);
  return entries.flatMap((e) => (e.entry.kind === "execution" ? [e.entry.idempotencyKey ?? ""] : []));
}

/** The keys of the allowing decisions of a trace, once per entry. */
async function allowedKeys(traceId: string, keyPrefix: string): Promise<string[]> {
  const entries = await new AuditTrail({ redis, keyPrefix }).readByTrace(traceId);
  return entries.flatMap((e) =>
    e.entry.kind === "decision" && e.entry.verdict === "allow" ? [e.entry.idempotencyKey ?? ""] : [],
  );
}

/**
 * Each call that succeeded has one allowing decision on record (stored with its claim, delivered
 * at most once), before its execution entry.
 */
async function expectOneDecisionEach(traceId: string, keyPrefix: string, succeeded: string[]) {
  const allowed = await allowedKeys(traceId, keyPrefix);
  for (const key of succeeded)
    expect(
      allowed.filter((k) => k === key),
      key,
    ).toHaveLength(1);
  const entries = await new AuditTrail({ redis, keyPrefix }).readByTrace(traceId);
  for (const key of succeeded) {
    const at = (kind: string) =>
      entries.findIndex(
        (e) => e.entry.kind === kind && e.entry.kind !== "operator" && e.entry.idempotencyKey === key,
      );
    expect(at("decision")).toBeLessThan(at("execution"));
  }
}

/** Tool calls of a journal whose recorded result is a success. */
function succeededCalls(records: Awaited<ReturnType<Journal["readRun"]>>["records"]): string[] {
  return [...records]
    .filter(([key, r]) => !key.startsWith("model:") && r.status === "completed")
    .filter(([, r]) => r.status === "completed" && (r.result as { success: boolean }).success)
    .map(([key]) => key);
}

describe("the run's outbox: SIGKILL around the execution entry's append", () => {
  for (const when of ["before", "after"] as const) {
    it(`killed just ${when} the append: the resumed run records each execution exactly once`, async () => {
      const keyPrefix = uniquePrefix(`outbox-${when}`);
      const { counter, env: files } = await crashRunFiles(writeScript(STEPS, "survived"));
      const env = {
        REDIS_URL: testRedisUrl(),
        KEY_PREFIX: keyPrefix,
        ...files,
        CLAIM_LEASE_MS: "900",
        LOCK_MS: "900",
      };
      const queue = agentQueue(redis, keyPrefix);
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      // The second call's entry: the first one's was delivered and its field acknowledged.
      const victim = startNodeProcess(WORKER, { ...env, KILL_AT_DELIVERY: when, KILL_AT_CALL: "2" });
      expect(await victim.exited).toBe("SIGKILL");

      // What the kill left: the entry is in the journal; in the audit trail only when killed after.
      // (The second call is the counter file's second line.)
      const ran = [...(await countExecutions(counter)).keys()];
      expect(ran).toHaveLength(2);
      const leftKey = ran[1]!;
      const left = await new Journal({ redis, keyPrefix }).readRun(payload.runId);
      expect(left.outbox.has(leftKey)).toBe(true);
      expect(left.records.get(leftKey)?.status).toBe("completed");
      const before = await executionKeys(payload.traceId, keyPrefix);
      expect(before.filter((k) => k === leftKey)).toHaveLength(when === "after" ? 1 : 0);

      const resumer = startNodeProcess(WORKER, env);
      try {
        await waitFor(
          "the resumed run to complete",
          async () =>
            (await (await Job.fromId(queue, payload.runId))?.getState()) === "completed" ? true : undefined,
          30_000,
          100,
        );
      } finally {
        await killHard(resumer.child);
      }
      const job = await Job.fromId(queue, payload.runId);
      expect(job?.returnvalue).toMatchObject({ status: "completed", finalAnswer: "survived" });
      // No call ran twice; one claimed when the kill landed is in doubt and not re-run (the tool is
      // not idempotent). Every call whose success is recorded has exactly one execution entry.
      const counts = await countExecutions(counter);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const { records } = await new Journal({ redis, keyPrefix }).readRun(payload.runId);
      const succeeded = succeededCalls(records);
      expect(succeeded.length).toBeGreaterThanOrEqual(STEPS - 1);
      for (const key of succeeded) expect(counts.get(key)).toBe(1);
      const executed = await executionKeys(payload.traceId, keyPrefix);
      expect(executed.sort()).toEqual(succeeded.sort());
      await expectOneDecisionEach(payload.traceId, keyPrefix, succeeded);
      expect(await outboxFields(payload.runId, keyPrefix)).toEqual([]);
      expect(await verifyChain(redis, keyPrefix)).toBeGreaterThan(0);
      await queue.close();
    }, 60_000);
  }

  it("several runs at once, workers killed at random deliveries: every succeeded call is on record exactly once", async () => {
    const seed = chaosSeed("outbox-crash");
    const random = prng(seed);
    const keyPrefix = uniquePrefix("outbox-random");
    const { counter, env: files } = await crashRunFiles(writeScript(6, "survived"));
    const env = {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: keyPrefix,
      ...files,
      CLAIM_LEASE_MS: "900",
      LOCK_MS: "900",
      CONCURRENCY: "3",
    };
    const queue = agentQueue(redis, keyPrefix);
    const payloads = [testPayload(), testPayload(), testPayload()];
    for (const p of payloads) await enqueueAgentRun(queue, p);
    const finished = async () => {
      for (const p of payloads)
        if ((await (await Job.fromId(queue, p.runId))?.getState()) !== "completed") return false;
      return true;
    };
    let kills = 0;
    for (let i = 0; i < 6 && !(await finished()); i++) {
      // Both windows, alternately; the delivery at which to die is random.
      const when = i % 2 === 0 ? "after" : "before";
      const at = 1 + Math.floor(random() * 8);
      const worker = startNodeProcess(WORKER, { ...env, KILL_AT_DELIVERY: when, KILL_AT_CALL: String(at) });
      // It kills itself at that delivery, or the runs end first; either way it is gone after.
      await waitFor(
        "the worker to kill itself or the runs to end",
        async () =>
          worker.child.exitCode !== null || worker.child.signalCode !== null || (await finished())
            ? true
            : undefined,
        30_000,
        50,
      );
      if (worker.child.signalCode === "SIGKILL") kills++;
      await killHard(worker.child);
    }
    expect(kills, `kills at a delivery (seed ${seed})`).toBeGreaterThan(0);
    const last = startNodeProcess(WORKER, env);
    try {
      await waitFor(
        "every run to complete",
        async () => ((await finished()) ? true : undefined),
        60_000,
        100,
      );
    } finally {
      await killHard(last.child);
    }
    const counts = await countExecutions(counter);
    expect(
      [...counts.entries()].filter(([, n]) => n > 1),
      `run twice (seed ${seed})`,
    ).toEqual([]);
    const journal = new Journal({ redis, keyPrefix });
    for (const p of payloads) {
      const { records, outbox } = await journal.readRun(p.runId);
      const succeeded = succeededCalls(records);
      expect((await executionKeys(p.traceId, keyPrefix)).sort(), `run ${p.runId} (seed ${seed})`).toEqual(
        succeeded.sort(),
      );
      await expectOneDecisionEach(p.traceId, keyPrefix, succeeded);
      expect(outbox.size, `outbox fields left in ${p.runId} (seed ${seed})`).toBe(0);
    }
    expect(await verifyChain(redis, keyPrefix)).toBeGreaterThan(0);
    await queue.close();
  }, 180_000);
});
