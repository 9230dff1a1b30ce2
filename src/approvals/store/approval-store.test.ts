import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { isRunnerError, ManualClock, sha256Hex } from "../../shared/index.js";
import type { ApprovalPolicy } from "./approval-policy.js";
import { ApprovalStore } from "./approval-store.js";
import { approvalIdFor } from "./keys.js";
import type { RegisterInput } from "./request-fields.js";

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
let redis: Redis;
const prefixes: string[] = [];

beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

function setup(policy: Partial<ApprovalPolicy> = {}) {
  const prefix = uniquePrefix("appr");
  prefixes.push(prefix);
  const clock = new ManualClock(T0);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock,
    policy: {
      waitTimeoutMs: HOUR,
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: "bob@example.test" },
      ],
      ...policy,
    },
  });
  return { store, clock, prefix };
}

let calls = 0;
function call(patch: Partial<RegisterInput> = {}): RegisterInput {
  calls += 1;
  return {
    runId: "run-1",
    jobId: "job-1",
    traceId: "trace-1",
    idempotencyKey: `key-${calls}`,
    tool: "exec",
    args: { command: "rm -rf build", cwd: "/work" },
    risk: "exec",
    flags: ["soft:rm-recursive"],
    reason: "recursive delete needs a person",
    agent: "nightly",
    channel: "cron",
    owner: "carol",
    scheduleId: "nightly-02",
    ...patch,
  };
}

const operator = (id: string) => ({ kind: "operator" as const, id, via: "cli" as const });

describe("ApprovalStore.register", () => {
  it("stores a pending v1 request whose id derives from the run and idempotency key", async () => {
    const { store } = setup();
    const input = call({ args: { cwd: "/work", command: "rm -rf build" } });
    const { record, created } = await store.register(input);
    expect(created).toBe(true);
    expect(record).toMatchObject({
      v: 1,
      id: approvalIdFor("run-1", input.idempotencyKey),
      status: "pending",
      tool: "exec",
      argsCanonical: '{"command":"rm -rf build","cwd":"/work"}',
      argsHash: sha256Hex('{"command":"rm -rf build","cwd":"/work"}'),
      requestedAt: T0,
      deadline: T0 + HOUR,
      decisions: [],
      notifiedAt: null,
      alwaysAllowed: true,
      requiredApprovals: 1,
    });
  });

  it("returns the existing request unchanged when the same call registers again", async () => {
    const { store, clock } = setup();
    const input = call();
    const first = await store.register(input);
    await store.decide({ id: first.record.id, actor: operator("alice"), decision: "deny" });
    clock.advance(10 * HOUR);
    const second = await store.register(input);
    expect(second.created).toBe(false);
    expect(second.record.status).toBe("denied");
    expect(second.record.deadline).toBe(T0 + HOUR);
  });

  it("uses the channel wait over the risk wait over the default", async () => {
    const { store } = setup({
      waitTimeoutMsByRisk: { exec: 2 * HOUR },
      waitTimeoutMsByChannel: { cron: 8 * HOUR },
    });
    expect((await store.register(call())).record.deadline).toBe(T0 + 8 * HOUR);
    expect((await store.register(call({ channel: "cli" }))).record.deadline).toBe(T0 + 2 * HOUR);
    expect((await store.register(call({ channel: "cli", risk: "write" }))).record.deadline).toBe(T0 + HOUR);
  });

  it("refuses arguments larger than the display limit with APPROVAL_INPUT_INVALID", async () => {
    const { store } = setup();
    const err = await store.register(call({ args: { content: "x".repeat(300 * 1024) } })).catch((e) => e);
    expect(isRunnerError(err, "APPROVAL_INPUT_INVALID")).toBe(true);
  });

  it("reports a damaged request as APPROVAL_CORRUPT instead of absent or approved", async () => {
    const { store } = setup();
    const { record } = await store.register(call());
    await redis.hset(store.keys.request(record.id), "status", "approvedish");
    const err = await store.get(record.id).catch((e) => e);
    expect(isRunnerError(err, "APPROVAL_CORRUPT")).toBe(true);
  });
});

describe("ApprovalStore.listWithDamaged and readMany", () => {
  /** Two readable pending requests and two damaged ones: a field that does not parse, a key of another type. */
  async function withDamaged() {
    const f = setup();
    const first = (await f.store.register(call())).record;
    const badField = (await f.store.register(call())).record;
    const badKey = (await f.store.register(call())).record;
    const last = (await f.store.register(call())).record;
    await redis.hset(f.store.keys.request(badField.id), "req", "{not json");
    await redis.del(f.store.keys.request(badKey.id));
    await redis.set(f.store.keys.request(badKey.id), "overwritten");
    return { ...f, first, badField, badKey, last };
  }
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

  it("lists the readable requests and names each damaged one with its code and what is wrong", async () => {
    const { store, first, badField, badKey, last } = await withDamaged();
    const pending = await store.listWithDamaged({ status: "pending" });
    expect(pending.records.map((r) => r.id).sort()).toEqual([first.id, last.id].sort());
    expect([...pending.damaged].sort(byId)).toEqual(
      [
        {
          id: badField.id,
          code: "APPROVAL_CORRUPT",
          message: expect.stringContaining("its req field is not valid JSON"),
        },
        {
          id: badKey.id,
          code: "APPROVAL_CORRUPT",
          message: expect.stringContaining("holds the wrong kind of Redis value"),
        },
      ].sort(byId),
    );
    const all = await store.listWithDamaged();
    expect(all.records.map((r) => r.id).sort()).toEqual([first.id, last.id].sort());
    expect(all.damaged.map((d) => d.id).sort()).toEqual([badField.id, badKey.id].sort());
    // list() keeps to the readable ones, for callers that show nobody a list.
    expect((await store.list({ status: "pending" })).map((r) => r.id).sort()).toEqual(
      [first.id, last.id].sort(),
    );
  });

  it("reads a run's requests by id: the readable ones, the damaged ones named, absent ones left out", async () => {
    const { store, first, badField } = await withDamaged();
    const read = await store.readMany([badField.id, first.id, approvalIdFor("run-1", "never-asked")]);
    expect(read.records.map((r) => r.id)).toEqual([first.id]);
    expect(read.damaged).toEqual([
      { id: badField.id, code: "APPROVAL_CORRUPT", message: expect.stringContaining(badField.id) },
    ]);
  });

  it("keeps a damaged request undecidable (APPROVAL_CORRUPT) while the healthy ones are decided", async () => {
    const { store, first, badField, badKey } = await withDamaged();
    for (const id of [badField.id, badKey.id]) {
      expect(isRunnerError(await store.get(id).catch((e) => e), "APPROVAL_CORRUPT")).toBe(true);
      const decided = await store
        .decide({ id, actor: operator("alice"), decision: "approve" })
        .catch((e) => e);
      expect(isRunnerError(decided, "APPROVAL_CORRUPT")).toBe(true);
      expect(
        await store.checkExecutable({ id, runId: "run-1", tool: "exec", argsHash: "x" }).catch((e) => e),
      ).toSatisfy((e: unknown) => isRunnerError(e, "APPROVAL_CORRUPT"));
    }
    const ok = await store.decide({ id: first.id, actor: operator("alice"), decision: "approve" });
    expect(ok).toMatchObject({ outcome: "decided", final: true });
    expect((await store.listWithDamaged({ status: "approved" })).records.map((r) => r.id)).toEqual([
      first.id,
    ]);
  });
});

describe("ApprovalStore.decide", () => {
  it("approves once, records who and when, and refuses a second decision reporting the first", async () => {
    const { store, clock } = setup();
    const { record } = await store.register(call());
    clock.advance(1000);
    const first = await store.decide({
      id: record.id,
      actor: operator("alice"),
      decision: "approve",
      comment: "ok",
    });
    expect(first).toMatchObject({ outcome: "decided", final: true, record: { status: "approved" } });
    expect(first.record?.decisions).toEqual([
      { by: "alice", at: T0 + 1000, decision: "approve", kind: "once", comment: "ok", via: "cli" },
    ]);
    const second = await store.decide({ id: record.id, actor: operator("bob"), decision: "deny" });
    expect(second.outcome).toBe("not_pending");
    expect(second.record?.decisions.map((d) => d.by)).toEqual(["alice"]);
    expect(second.record?.status).toBe("approved");
  });

  it("writes a final decision to the events stream for workers in other processes", async () => {
    const { store } = setup();
    const { record } = await store.register(call());
    await store.decide({ id: record.id, actor: operator("alice"), decision: "deny" });
    const events = await store.readEvents();
    expect(events).toEqual([
      { streamId: expect.any(String), id: record.id, status: "denied", runId: "run-1", jobId: "job-1" },
    ]);
    expect(await store.readEvents(events[0]!.streamId)).toEqual([]);
  });

  it("stays pending until the required number of distinct approvers approved", async () => {
    const { store } = setup({ requiredApprovals: { exec: 2 } });
    const { record } = await store.register(call());
    const a = await store.decide({ id: record.id, actor: operator("alice"), decision: "approve" });
    expect(a).toMatchObject({ outcome: "decided", final: false, record: { status: "pending" } });
    const again = await store.decide({ id: record.id, actor: operator("alice"), decision: "approve" });
    expect(again.outcome).toBe("already_voted");
    const b = await store.decide({ id: record.id, actor: operator("bob"), decision: "approve" });
    expect(b).toMatchObject({ outcome: "decided", final: true, record: { status: "approved" } });
  });

  it("denies when any one of several required approvers denies", async () => {
    const { store } = setup({ requiredApprovals: { exec: 2 } });
    const { record } = await store.register(call());
    await store.decide({ id: record.id, actor: operator("alice"), decision: "approve" });
    const b = await store.decide({ id: record.id, actor: operator("bob"), decision: "deny" });
    expect(b).toMatchObject({ outcome: "decided", final: true, record: { status: "denied" } });
  });

  it("refuses the run's owner when self-approval is forbidden, and accepts someone else", async () => {
    const { store } = setup({ forbidSelfApproval: true });
    const { record } = await store.register(call({ owner: "alice" }));
    expect(
      (await store.decide({ id: record.id, actor: operator("alice"), decision: "approve" })).outcome,
    ).toBe("self_approval");
    expect((await store.decide({ id: record.id, actor: operator("bob"), decision: "approve" })).outcome).toBe(
      "decided",
    );
  });

  it.each([["Alice"], ["alice "], [" ALICE"], ["ａｌｉｃｅ"], ["al\u200bice"]])(
    "reads operator %j as the owner alice: refused under forbid_self_approval",
    async (spelling) => {
      const { store } = setup({ forbidSelfApproval: true });
      const { record } = await store.register(call({ owner: "alice" }));
      const result = await store.decide({ id: record.id, actor: operator(spelling), decision: "approve" });
      expect(result.outcome).toBe("self_approval");
    },
  );

  it("reads a differently spelled owner as the approver it names", async () => {
    const { store } = setup({ forbidSelfApproval: true });
    const { record } = await store.register(call({ owner: "Bob " }));
    const result = await store.decide({ id: record.id, actor: operator("bob"), decision: "approve" });
    expect(result.outcome).toBe("self_approval");
  });

  it("counts one person once toward a quorum however the name is spelled, and records the configured id", async () => {
    const { store } = setup({ requiredApprovals: { exec: 2 } });
    const { record } = await store.register(call());
    const a = await store.decide({ id: record.id, actor: operator("ALICE"), decision: "approve" });
    expect(a).toMatchObject({ outcome: "decided", final: false });
    expect(a.record?.decisions.map((d) => d.by)).toEqual(["alice"]);
    for (const spelling of ["alice", "Alice", "alice\t", "ａｌｉｃｅ"]) {
      const again = await store.decide({ id: record.id, actor: operator(spelling), decision: "approve" });
      expect(again.outcome).toBe("already_voted");
    }
    expect((await store.get(record.id))?.status).toBe("pending");
  });

  it.each([["nobody-1"], ["alice."], ["alicia"], [""], ["   "]])(
    "never lets the made-up name %j decide or count",
    async (name) => {
      const { store } = setup({ requiredApprovals: { exec: 2 } });
      const { record } = await store.register(call());
      const result = await store.decide({ id: record.id, actor: operator(name), decision: "approve" });
      expect(result).toEqual({ outcome: "not_an_approver", record: null });
      expect((await store.get(record.id))?.decisions).toEqual([]);
    },
  );

  it("refuses a decision at or after the deadline and marks the request expired", async () => {
    const { store, clock } = setup();
    const { record } = await store.register(call());
    clock.set(record.deadline);
    const result = await store.decide({ id: record.id, actor: operator("alice"), decision: "approve" });
    expect(result).toMatchObject({ outcome: "expired", record: { status: "expired" } });
  });

  it.each([
    ["write", "always_not_allowed"],
    ["dangerous", "always_not_allowed"],
    ["exec", "decided"],
  ] as const)("answers approve_always on a %s call with %s", async (risk, outcome) => {
    const { store } = setup();
    const { record } = await store.register(call({ risk }));
    const result = await store.decide({
      id: record.id,
      actor: operator("alice"),
      decision: "approve_always",
    });
    expect(result.outcome).toBe(outcome);
  });

  it("answers not_found for an unknown id", async () => {
    const { store } = setup();
    const result = await store.decide({ id: "0".repeat(32), actor: operator("alice"), decision: "approve" });
    expect(result).toEqual({ outcome: "not_found", record: null });
  });
});

describe("ApprovalStore.cancelRun and expireDue", () => {
  it("cancels only the pending requests of the run, and a later decision is refused", async () => {
    const { store } = setup();
    const pending = (await store.register(call())).record;
    const decided = (await store.register(call())).record;
    const other = (await store.register(call({ runId: "run-2" }))).record;
    await store.decide({ id: decided.id, actor: operator("alice"), decision: "approve" });
    expect(await store.cancelRun("run-1")).toEqual([pending.id]);
    expect((await store.get(pending.id))?.status).toBe("cancelled");
    expect((await store.get(decided.id))?.status).toBe("approved");
    expect((await store.get(other.id))?.status).toBe("pending");
    const late = await store.decide({ id: pending.id, actor: operator("alice"), decision: "approve" });
    expect(late.outcome).toBe("not_pending");
    expect((await store.list({ status: "pending" })).map((r) => r.id)).toEqual([other.id]);
  });

  it("marks overdue pending requests expired and leaves the others", async () => {
    const { store, clock } = setup();
    const short = (await store.register(call())).record;
    clock.advance(HOUR / 2);
    const later = (await store.register(call())).record;
    clock.set(short.deadline + 1);
    expect(await store.expireDue()).toEqual([short.id]);
    expect((await store.get(short.id))?.status).toBe("expired");
    expect((await store.get(later.id))?.status).toBe("pending");
  });
});

describe("ApprovalStore.checkExecutable", () => {
  it("lets the approved call run and refuses it with changed arguments", async () => {
    const { store } = setup();
    const input = call();
    const { record } = await store.register(input);
    await store.decide({ id: record.id, actor: operator("alice"), decision: "approve" });
    const same = await store.checkExecutable({
      id: record.id,
      runId: "run-1",
      tool: "exec",
      argsHash: record.argsHash,
    });
    expect(same).toMatchObject({ ok: true, approvers: ["alice"], always: false });
    const changed = await store.checkExecutable({
      id: record.id,
      runId: "run-1",
      tool: "exec",
      argsHash: sha256Hex('{"command":"rm -rf /","cwd":"/work"}'),
    });
    expect(changed).toMatchObject({ ok: false, reason: "args_mismatch" });
  });
});

describe("ApprovalStore promoter position and decidedSince", () => {
  it("starts at the newest event when no position was saved, and the saved one only moves forward", async () => {
    const { store } = setup();
    expect(await store.promoterPosition()).toBe("0-0");
    const { record } = await store.register(call());
    await store.decide({ id: record.id, actor: operator("alice"), decision: "approve" });
    const [event] = await store.readEvents("0");
    expect(await store.promoterPosition()).toBe(event!.streamId);
    await store.savePromoterPosition("1700000000000-5");
    await store.savePromoterPosition("1700000000000-3");
    await store.savePromoterPosition("999-9");
    expect(await store.promoterPosition()).toBe("1700000000000-5");
    await store.savePromoterPosition("1700000000001-0");
    expect(await store.promoterPosition()).toBe("1700000000001-0");
  });

  it("names the runs with a request finished after the given instant, and not pending or older ones", async () => {
    const { store, clock } = setup();
    const decided = await store.register(call({ runId: "run-decided", jobId: "run-decided" }));
    const old = await store.register(call({ runId: "run-old", jobId: "run-old" }));
    await store.register(call({ runId: "run-pending", jobId: "run-pending" }));
    await store.decide({ id: old.record.id, actor: operator("alice"), decision: "deny" });
    clock.advance(10_000);
    await store.decide({ id: decided.record.id, actor: operator("bob"), decision: "approve" });
    const runs = ["run-decided", "run-old", "run-pending", "run-unknown"].map((runId) => ({
      runId,
      since: T0 + 5_000,
    }));
    expect(await store.decidedSince(runs)).toEqual(["run-decided"]);
    expect(await store.decidedSince([])).toEqual([]);
  });
});
