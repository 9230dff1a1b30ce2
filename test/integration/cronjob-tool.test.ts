import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ParkSignal, type RunDeps, runAgent, storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore, LogNotifier } from "../../src/approvals/index.js";
import type { ToolResult } from "../../src/catalog/index.js";
import { AuditTrail, Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import type { AgentJobPayload } from "../../src/queue/index.js";
import {
  approverFromApprovals,
  createCronjobTool,
  ScheduleService,
  ScheduleStore,
} from "../../src/scheduler/index.js";
import type { ToolExecutionContextOptions } from "../../src/tools/index.js";
import { testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";
import { callTool } from "../helpers/tool-call.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

const CREATE = {
  action: "create",
  id: "nightly-report",
  cron: "0 2 * * *",
  timezone: "Europe/Berlin",
  task: "write the nightly report",
};

/**
 * A run loop with the real cronjob tool bound to a real ScheduleService, the real approval store
 * (approvals decided with store.decide, as the CLI and the links do) and a scripted model whose one
 * tool call is `call`.
 */
async function setup(keyPrefix: string, call: Record<string, unknown> = CREATE) {
  const logger = createLogger({ level: "silent", format: "json" });
  const approvals = new ApprovalStore({
    redis,
    keyPrefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "bob", email: null }] },
  });
  const notifications = new ApprovalNotifications({
    store: approvals,
    notifiers: [new LogNotifier(logger)],
    publicUrl: "http://127.0.0.1:9",
    logger,
  });
  const service = new ScheduleService({ store: new ScheduleStore({ redis, keyPrefix }) });
  const tool = createCronjobTool({
    schedules: service,
    approverOf: approverFromApprovals(approvals),
    models: ["scripted"],
  });
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [tool],
    script: stringify([{ tool_calls: [{ name: "cronjob", arguments: call }] }, { content: "done" }]),
  });
  const runDeps: RunDeps = {
    ...deps,
    approvals: storeApprovals({ store: approvals, notifications, logger }),
  };
  return { approvals, service, tool, deps: runDeps };
}

/** The journalled result of the run's cronjob call. */
async function cronjobResult(keyPrefix: string, runId: string): Promise<ToolResult | undefined> {
  const snapshot = await new Journal({ redis, keyPrefix }).readRun(runId);
  const record = [...snapshot.records.entries()].find(([key]) => !key.startsWith("model:"))?.[1] as
    | { result: ToolResult }
    | undefined;
  return record?.result;
}

/** Runs the payload until it parks for the person, then has `approver` approve the request. */
async function parkAndApprove(
  s: Awaited<ReturnType<typeof setup>>,
  payload: AgentJobPayload,
  approver: string,
): Promise<void> {
  const parked = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps: s.deps }).catch((e) => e);
  expect(parked).toBeInstanceOf(ParkSignal);
  const [request] = await s.approvals.list({ status: "pending" });
  expect(request).toMatchObject({ tool: "cronjob", risk: "dangerous" });
  const decided = await s.approvals.decide({
    id: request!.id,
    actor: { kind: "operator", id: approver, via: "cli" },
    decision: "approve",
  });
  expect(decided.outcome).toBe("decided");
}

/** A direct call of the tool, as another approval source would reach it (the gate never lets one). */
function direct(
  s: Awaited<ReturnType<typeof setup>>,
  args: Record<string, unknown>,
  overrides: Partial<ToolExecutionContextOptions> = {},
): Promise<ToolResult> {
  return callTool(s.tool, args, {
    userId: "ann",
    allowedTools: ["cronjob", "read_file", "write_file"],
    workspace: "/tmp/echo-ws",
    ...overrides,
  });
}

describe("cronjob tool", () => {
  it("creates a schedule with a grant naming the person who approved that very call", async () => {
    const keyPrefix = uniquePrefix("cronjob-human");
    const s = await setup(keyPrefix);
    const payload = testPayload();
    // Nothing is created while the call waits for the person.
    await parkAndApprove(s, payload, "bob");
    expect(await s.service.get("nightly-report")).toBeNull();
    expect(await runAgent({ payload, jobId: payload.runId, owner: "w2", deps: s.deps })).toMatchObject({
      status: "completed",
    });
    const view = await s.service.get("nightly-report");
    expect(view?.schedule).toMatchObject({
      cron: "0 2 * * *",
      timezone: "Europe/Berlin",
      owner: "ann",
      source: { kind: "cronjob", runId: payload.runId },
      agent: { model: "scripted", task: "write the nightly report", workspace: payload.agent.workspace },
    });
    expect(view?.grant).toMatchObject({ source: "human", approver: "bob", status: "active" });
    expect(await s.service.resolveCronAuthorization("nightly-report", Date.now())).toMatchObject({
      cronAuthorized: true,
      reason: "granted-by-human",
    });
    const result = await cronjobResult(keyPrefix, payload.runId);
    expect(result).toMatchObject({ success: true });
    expect((result as { output: string }).output).toContain("its runs are cron-authorised");
    const trail = await new AuditTrail({ redis, keyPrefix }).readByTrace(payload.traceId);
    expect(
      trail.map((e) => e.entry).find((e) => e.kind === "execution" && e.tool === "cronjob"),
    ).toMatchObject({ approvalSource: "human", approver: "bob" });
  });

  it("a replay of the run returns the journalled result and does not create the schedule again", async () => {
    const keyPrefix = uniquePrefix("cronjob-replay");
    const s = await setup(keyPrefix);
    const payload = testPayload();
    await parkAndApprove(s, payload, "bob");
    await runAgent({ payload, jobId: payload.runId, owner: "w2", deps: s.deps });
    const first = await cronjobResult(keyPrefix, payload.runId);
    // Removed behind the run's back: a second execution would create it again.
    expect(await s.service.delete("nightly-report")).toBe(true);
    expect(await runAgent({ payload, jobId: payload.runId, owner: "w3", deps: s.deps })).toMatchObject({
      status: "completed",
    });
    expect(await s.service.get("nightly-report")).toBeNull();
    expect(await cronjobResult(keyPrefix, payload.runId)).toEqual(first);
  });

  it("is denied in an unattended run at the gate's unattended step, and creates nothing", async () => {
    const keyPrefix = uniquePrefix("cronjob-unattended");
    const s = await setup(keyPrefix);
    const payload = testPayload({ unattended: true, channel: "cron" });
    expect(await runAgent({ payload, jobId: payload.runId, owner: "w1", deps: s.deps })).toMatchObject({
      status: "completed",
    });
    expect(await cronjobResult(keyPrefix, payload.runId)).toMatchObject({
      success: false,
      errorKind: "denied",
    });
    const trail = await new AuditTrail({ redis, keyPrefix }).readByTrace(payload.traceId);
    const decision = trail.map((e) => e.entry).find((e) => e.kind === "decision" && e.tool === "cronjob");
    expect(decision).toMatchObject({ verdict: "deny", step: 4 });
    expect(await s.service.get("nightly-report")).toBeNull();
    expect(await s.approvals.list({ status: "pending" })).toEqual([]);
    // The tool itself refuses too, should anything ever let an unattended call past the gate.
    expect(await direct(s, CREATE, { unattended: true, approvalSource: "human" })).toMatchObject({
      success: false,
      errorKind: "denied",
    });
    expect(await s.service.get("nightly-report")).toBeNull();
  });

  it("creates a schedule without a grant when the call was approved by any other source", async () => {
    const s = await setup(uniquePrefix("cronjob-auto"));
    const result = await direct(s, CREATE, { approvalSource: "auto" });
    expect(result).toMatchObject({ success: true });
    expect((result as { output: string }).output).toContain("not cron-authorised (no-grant)");
    const view = await s.service.get("nightly-report");
    expect(view?.grant).toBeNull();
    expect(view?.schedule.agent.allowedTools).toEqual(["cronjob", "read_file", "write_file"]);
    expect(view?.authorization).toMatchObject({ cronAuthorized: false, reason: "no-grant" });
  });

  it("marks a call human only with an approval record naming the person; without one nothing changes", async () => {
    const s = await setup(uniquePrefix("cronjob-norecord"));
    const result = await direct(s, CREATE, { approvalSource: "human" });
    expect(result).toMatchObject({ success: false, errorKind: "internal" });
    expect(await s.service.get("nightly-report")).toBeNull();
  });

  it.each([
    { args: { action: "create", id: "x", task: "t" }, field: "cron" },
    { args: { action: "create", id: "x", cron: "0 2 * * *" }, field: "task" },
    { args: { action: "create", cron: "0 2 * * *", task: "t" }, field: "id" },
    { args: { ...CREATE, cron: "0 25 * * *" }, field: "cron" },
    { args: { ...CREATE, timezone: "Europe/Atlantis" }, field: "timezone" },
    { args: { ...CREATE, model: "gpt-unknown" }, field: "model" },
    { args: { ...CREATE, allowed_tools: ["read_file", "exec"] }, field: "allowed_tools" },
    { args: { ...CREATE, id: "has space" }, field: "id" },
    { args: { ...CREATE, overlap: "sometimes" }, field: "overlap" },
    { args: { ...CREATE, catch_up_max: 5000 }, field: "catch_up_max" },
    { args: { ...CREATE, action: "reschedule" }, field: "action" },
    { args: { action: "update", id: "nightly-report" }, field: "" },
  ])("rejects $args naming the field '$field', changing nothing", async ({ args, field }) => {
    const s = await setup(uniquePrefix("cronjob-bad"));
    const result = await direct(s, args, { approvalSource: "auto" });
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    const fields = ((result as { data?: { fields?: { field: string }[] } }).data?.fields ?? []).map(
      (f) => f.field,
    );
    expect(fields).toContain(field);
    expect(await s.service.list()).toEqual([]);
  });

  it("an edit of the spec through the tool without a person's approval voids the grant; pause keeps it", async () => {
    const keyPrefix = uniquePrefix("cronjob-void");
    const s = await setup(keyPrefix);
    const payload = testPayload();
    await parkAndApprove(s, payload, "bob");
    await runAgent({ payload, jobId: payload.runId, owner: "w2", deps: s.deps });
    expect((await s.service.get("nightly-report"))?.authorization.cronAuthorized).toBe(true);

    expect(
      await direct(s, { action: "pause", id: "nightly-report" }, { approvalSource: "auto" }),
    ).toMatchObject({ success: true });
    expect((await s.service.get("nightly-report"))?.authorization.cronAuthorized).toBe(true);

    const edit = await direct(
      s,
      { action: "update", id: "nightly-report", task: "delete every report" },
      { approvalSource: "auto" },
    );
    expect(edit).toMatchObject({ success: true });
    const view = await s.service.get("nightly-report");
    expect(view?.schedule.agent.task).toBe("delete every report");
    expect(view?.grant).toMatchObject({ status: "voided" });
    expect(await s.service.resolveCronAuthorization("nightly-report", Date.now())).toMatchObject({
      cronAuthorized: false,
      reason: "grant-voided",
    });
  });

  it("lists only the caller's schedules and refuses to touch another user's", async () => {
    const s = await setup(uniquePrefix("cronjob-owner"));
    await direct(s, CREATE, { approvalSource: "auto" });
    await direct(s, { ...CREATE, id: "bobs" }, { approvalSource: "auto", userId: "bob" });
    const listed = await direct(s, { action: "list" }, { approvalSource: "auto" });
    expect((listed as { data: { schedules: { id: string }[] } }).data.schedules.map((x) => x.id)).toEqual([
      "nightly-report",
    ]);
    expect(await direct(s, { action: "delete", id: "bobs" }, { approvalSource: "auto" })).toMatchObject({
      success: false,
      errorKind: "denied",
    });
    expect(await s.service.get("bobs")).not.toBeNull();
    expect(
      await direct(s, { action: "delete", id: "nightly-report" }, { approvalSource: "auto" }),
    ).toMatchObject({ success: true });
    expect(await s.service.get("nightly-report")).toBeNull();
  });

  it("says it is not ready without a schedule store or a model to name", () => {
    const approverOf = async () => undefined;
    expect(
      createCronjobTool({ schedules: undefined, approverOf, models: ["m"] }).readinessDetail(),
    ).toMatchObject({ ready: false });
    const service = new ScheduleService({ store: new ScheduleStore({ redis, keyPrefix: "unused" }) });
    expect(createCronjobTool({ schedules: service, approverOf, models: [] }).isReady()).toBe(false);
    expect(createCronjobTool({ schedules: service, approverOf, models: ["m"] }).isReady()).toBe(true);
  });
});
