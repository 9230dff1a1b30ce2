import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ParkSignal, runAgent, storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, LogNotifier } from "../../src/approvals/index.js";
import { Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { computeIdempotencyKey } from "../../src/tools/index.js";
import {
  countExecutions,
  countingWriteTool,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

/**
 * A write whose earlier attempt claimed the journal and died before completing (the claim lapsed):
 * with in_doubt_policy park, a person decides whether it runs again.
 */
async function inDoubtRun(decision: "approve" | "deny" | "approve-first-run-only") {
  const keyPrefix = uniquePrefix("doubt");
  const counter = join(await mkdtemp(join(tmpdir(), "echo-doubt-")), "c.txt");
  const clock = new ManualClock(1_000_000);
  const logger = createLogger({ level: "silent", format: "json" });
  const store = new ApprovalStore({
    redis,
    keyPrefix,
    clock,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "ann", email: null }] },
  });
  const notifications = new ApprovalNotifications({
    store,
    notifiers: [new LogNotifier(logger)],
    publicUrl: "http://x",
    logger,
  });
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [countingWriteTool(counter)],
    script: writeScript(1),
    configOverrides: { execution: { network_policy: "allow", in_doubt_policy: "park" } },
  });
  const journal = new Journal({ redis, keyPrefix, clock });
  const run = { ...deps, journal, clock, approvals: storeApprovals({ store, notifications, logger }) };
  const payload = testPayload();
  const params = { path: "f0.txt", content: "step-0" };
  const key = computeIdempotencyKey({
    traceId: payload.traceId,
    toolName: "write_file",
    callIndex: 0,
    params,
  });
  await journal.claim({ runId: payload.runId, key, owner: "dead-worker", leaseMs: 1000 });
  clock.advance(5000);
  if (decision === "approve-first-run-only") {
    // The call's own approval (as if a person had approved its first run) must not approve a re-run.
    const { record } = await store.register({
      runId: payload.runId,
      jobId: payload.runId,
      traceId: payload.traceId,
      idempotencyKey: key,
      tool: "write_file",
      args: params,
      risk: "write",
      reason: "first run",
      agent: payload.agentId,
      channel: payload.channel,
    });
    await store.decide({
      id: record.id,
      actor: { kind: "operator", id: "ann", via: "cli" },
      decision: "approve",
    });
  }
  const parked = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps: run }).catch((e) => e);
  return { store, run, payload, parked, counter };
}

describe("an in-doubt call with in_doubt_policy park", () => {
  it("asks a person; approve runs it again once", async () => {
    const { store, run, payload, parked, counter } = await inDoubtRun("approve");
    expect(parked).toBeInstanceOf(ParkSignal);
    const pending = await store.list({ status: "pending" });
    expect(pending).toHaveLength(1);
    expect(pending[0]?.reason).toContain("in doubt");
    await store.decide({
      id: pending[0]!.id,
      actor: { kind: "operator", id: "ann", via: "cli" },
      decision: "approve",
    });
    expect(await runAgent({ payload, jobId: payload.runId, owner: "w2", deps: run })).toMatchObject({
      status: "completed",
    });
    expect([...(await countExecutions(counter)).values()]).toEqual([1]);
  });

  it("deny records an in-doubt failure and never runs it", async () => {
    const { store, run, payload, parked, counter } = await inDoubtRun("deny");
    expect(parked).toBeInstanceOf(ParkSignal);
    const [pending] = await store.list({ status: "pending" });
    await store.decide({
      id: pending!.id,
      actor: { kind: "operator", id: "ann", via: "cli" },
      decision: "deny",
    });
    expect(await runAgent({ payload, jobId: payload.runId, owner: "w2", deps: run })).toMatchObject({
      status: "completed",
    });
    expect((await countExecutions(counter)).size).toBe(0);
  });

  it("does not take the approval of the call's first run as an approval to run it again", async () => {
    const { store, parked } = await inDoubtRun("approve-first-run-only");
    expect(parked).toBeInstanceOf(ParkSignal);
    const pending = await store.list({ status: "pending" });
    expect(pending.map((r) => r.reason)).toEqual([expect.stringContaining("in doubt")]);
  });
});
