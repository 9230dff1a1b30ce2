import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ParkSignal, runAgent, storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, LogNotifier } from "../../src/approvals/index.js";
import { defineTool, type ToolExecutionContext, toolFailure, toolSuccess } from "../../src/catalog/index.js";
import { AuditTrail, Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { computeIdempotencyKey } from "../../src/tools/index.js";
import { testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * seed 000's ToolExecutionContext fields as a tool sees them in a real run (Redis journal, approval
 * store): isReplay on the re-run of an idempotent call a crash left in doubt, attemptIndex counting
 * re-runs, and approvedActions holding the tool's name when a person approved the call — so a tool
 * written from the seed's own example works.
 */

const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
afterAll(() => redis.disconnect());

function approvals(keyPrefix: string, clock: ManualClock) {
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
  return { store, port: storeApprovals({ store, notifications, logger }) };
}

describe("ToolExecutionContext in a real run", () => {
  it("re-runs an idempotent call a crash left in doubt with isReplay true and attemptIndex 1", async () => {
    const keyPrefix = uniquePrefix("ctx-replay");
    const clock = new ManualClock(1_000_000);
    const seen: ToolExecutionContext[] = [];
    const idempotentWrite = defineTool({
      name: "write_file",
      description: "an idempotent write (test tool): records the context it was given",
      parameters: Type.Object({ path: Type.String(), content: Type.String() }),
      idempotent: true,
      async execute(_args, ctx) {
        seen.push(ctx);
        return toolSuccess("written");
      },
    });
    const params = { path: "a.txt", content: "x" };
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [idempotentWrite],
      script: stringify([{ tool_calls: [{ name: "write_file", arguments: params }] }, { content: "done" }]),
    });
    const journal = new Journal({ redis, keyPrefix, clock });
    const payload = testPayload();
    const key = computeIdempotencyKey({
      traceId: payload.traceId,
      toolName: "write_file",
      callIndex: 0,
      params,
    });
    // An earlier attempt claimed the call and died before completing it.
    await journal.claim({ runId: payload.runId, key, owner: "dead-worker", leaseMs: 1000 });
    clock.advance(5000);
    const outcome = await runAgent({
      payload,
      jobId: payload.runId,
      owner: "w1",
      deps: { ...deps, journal, clock },
    });
    expect(outcome).toMatchObject({ status: "completed" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ isReplay: true, attemptIndex: 1, idempotencyKey: key });
    const trail = await new AuditTrail({ redis, keyPrefix }).readByTrace(payload.traceId);
    expect(trail.map((e) => e.entry).find((e) => e.kind === "execution")).toMatchObject({ isReplay: true });
  });

  it("runs a first execution with isReplay false and attemptIndex 0", async () => {
    const keyPrefix = uniquePrefix("ctx-first");
    const seen: ToolExecutionContext[] = [];
    const write = defineTool({
      name: "write_file",
      description: "records the context it was given (test tool)",
      parameters: Type.Object({ path: Type.String(), content: Type.String() }),
      idempotent: true,
      async execute(_args, ctx) {
        seen.push(ctx);
        return toolSuccess("written");
      },
    });
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [write],
      script: stringify([
        { tool_calls: [{ name: "write_file", arguments: { path: "a", content: "x" } }] },
        { content: "done" },
      ]),
    });
    const payload = testPayload();
    await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
    expect(seen[0]).toMatchObject({ isReplay: false, attemptIndex: 0 });
    expect(seen[0]?.approvedActions.size).toBe(0);
  });

  it("runs a tool written from seed 000's example once a person approved it in an unattended run", async () => {
    const keyPrefix = uniquePrefix("ctx-approved");
    const clock = new ManualClock(1_000_000);
    const ran: string[][] = [];
    // seed 000, "利用上下文进行权限检查": unattended and not in approved_actions → refuse.
    const seedExample = defineTool({
      name: "exec",
      description: "the seed's example tool, under a catalog name",
      parameters: Type.Object({ command: Type.String() }),
      riskLevel: "exec",
      async execute(_args, ctx) {
        if (ctx.unattended && !ctx.approvedActions.has("exec"))
          return toolFailure("business", "unattended mode needs explicit authorisation");
        if (ctx.approvalSource !== "human") return toolFailure("business", "needs a person's confirmation");
        ran.push([...ctx.approvedActions]);
        return toolSuccess("ok");
      },
    });
    const { store, port } = approvals(keyPrefix, clock);
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [seedExample],
      script: stringify([
        { tool_calls: [{ name: "exec", arguments: { command: "make report" } }] },
        { content: "done" },
      ]),
      approvals: port,
      configOverrides: {
        execution: { network_policy: "allow", in_doubt_policy: "fail" },
        permissions: { approval: { unattended_policy: "allow_safe" }, elevated: { enabled: false } },
      },
    });
    const run = { ...deps, clock };
    const payload = testPayload({ unattended: true, channel: "cron" });
    const parked = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps: run }).catch((e) => e);
    expect(parked).toBeInstanceOf(ParkSignal);
    const [pending] = await store.list({ status: "pending" });
    await store.decide({
      id: pending!.id,
      actor: { kind: "operator", id: "ann", via: "cli" },
      decision: "approve",
    });
    const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w2", deps: run });
    expect(outcome).toMatchObject({ status: "completed" });
    expect(ran).toHaveLength(1);
    expect(ran[0]).toContain("exec");
    expect(ran[0]).toContain(pending!.idempotencyKey);
  });
});
