import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { isRunnerError, ManualClock, sha256Hex } from "../../shared/index.js";
import { DigestStore } from "../notify/index.js";
import { ApprovalStore } from "./approval-store.js";
import { hashLinkToken, legacyLinkTokenHash, newLinkToken } from "./link-tokens.js";
import type { ApprovalRecord } from "./record.js";
import { decodeRequest } from "./record-codec.js";
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

function setup() {
  const prefix = uniquePrefix("apprv");
  prefixes.push(prefix);
  const clock = new ManualClock(T0 + 60_000);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock,
    policy: {
      waitTimeoutMs: HOUR,
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: null },
      ],
    },
  });
  return { store, clock, prefix };
}

const ARGS = '{"command":"rm -rf build","cwd":"/work"}';
const V1_ID = "0123456789abcdef0123456789abcdef";

/** The request JSON exactly as v1 wrote it into the `req` field. */
const V1_REQ = {
  v: 1,
  id: V1_ID,
  idempotencyKey: "key-v1",
  jobId: "job-v1",
  runId: "run-v1",
  traceId: "trace-v1",
  tool: "exec",
  argsCanonical: ARGS,
  argsHash: sha256Hex(ARGS),
  risk: "exec",
  flags: ["soft:rm-recursive"],
  reason: "recursive delete needs a person",
  agent: "nightly",
  scheduleId: null,
  parentRunId: null,
  owner: "carol",
  channel: "cron",
  requestedAt: T0,
  deadline: T0 + HOUR,
  remindAt: T0 + HOUR - 600_000,
  requiredApprovals: 1,
  forbidSelfApproval: false,
  alwaysAllowed: true,
  approvers: [
    { id: "alice", email: "alice@example.test" },
    { id: "bob", email: null },
  ],
};

/** Writes a pending request, its token and its run's index as the v1 register script and issueToken did. */
async function writeV1(store: ApprovalStore, tokenHash: string): Promise<void> {
  const base = store.keys.base;
  await redis.hset(store.keys.request(V1_ID), {
    req: JSON.stringify(V1_REQ),
    status: "pending",
    decisions: "[]",
    deadline: String(T0 + HOUR),
    required: "1",
    owner: "carol",
    noself: "0",
    always: "1",
    grace: "900000",
    runId: "run-v1",
    jobId: "job-v1",
    "cur:alice": tokenHash,
    [`t:${tokenHash}`]: JSON.stringify({ a: "alice", s: "live", at: T0 }),
  });
  await redis.sadd(`${base}run:run-v1`, V1_ID);
  await redis.zadd(`${base}pending`, T0 + HOUR, V1_ID);
  await redis.zadd(`${base}remind`, T0 + HOUR - 600_000, V1_ID);
  await redis.zadd(`${base}all`, T0, V1_ID);
}

function input(patch: Partial<RegisterInput> = {}): RegisterInput {
  return {
    runId: "run-2",
    jobId: "run-2",
    traceId: "trace-2",
    idempotencyKey: "key-2",
    tool: "exec",
    args: { command: "rm -rf build", cwd: "/work" },
    risk: "exec",
    flags: [],
    reason: "recursive delete needs a person",
    agent: "nightly",
    channel: "cron",
    owner: "carol",
    ...patch,
  };
}

describe("a request stored by v1", () => {
  it("decodes to the same record, and its link, decision and run index work after the upgrade", async () => {
    const { store } = setup();
    const { token } = newLinkToken();
    await writeV1(store, legacyLinkTokenHash(token));
    const record = await store.require(V1_ID);
    expect(record).toMatchObject({ ...V1_REQ, status: "pending", decisions: [], fetches: [] });
    expect(await store.runRequestIds("run-v1")).toEqual([V1_ID]);
    const lookup = await store.lookupToken(V1_ID, token);
    expect(lookup).toMatchObject({ approver: "alice", state: "live", tokenHash: legacyLinkTokenHash(token) });
    const decided = await store.decide({
      id: V1_ID,
      actor: { kind: "token", token },
      decision: "approve_always",
    });
    expect(decided.outcome).toBe("decided");
    expect(decided.record).toMatchObject({ status: "approved", jobId: "job-v1", argsHash: sha256Hex(ARGS) });
    const [event] = await store.readEvents("0");
    expect(event).toMatchObject({ id: V1_ID, status: "approved", runId: "run-v1", jobId: "job-v1" });
  });

  it("its link (a hex token hash) is replaced by a reminder's link in the short form, which decides once", async () => {
    const { store } = setup();
    const { token: mailed } = newLinkToken();
    await writeV1(store, legacyLinkTokenHash(mailed));
    const key = store.keys.request(V1_ID);
    const tampered = `${mailed.slice(0, -1)}${mailed.endsWith("A") ? "B" : "A"}`;
    expect(await store.lookupToken(V1_ID, tampered)).toBeNull();
    const byToken = (token: string) =>
      store.decide({ id: V1_ID, actor: { kind: "token", token }, decision: "approve" });
    expect((await byToken(tampered)).outcome).toBe("token_invalid");

    const reminded = (await store.issueToken(V1_ID, "alice"))!;
    const raw = await redis.hgetall(key);
    expect(raw["cur:alice"]).toBe(hashLinkToken(reminded));
    expect(raw["cur:alice"]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(JSON.parse(raw[`t:${legacyLinkTokenHash(mailed)}`]!)).toMatchObject({ a: "alice", s: "replaced" });
    expect(raw).not.toHaveProperty(`t:${legacyLinkTokenHash(reminded)}`);
    expect((await byToken(mailed)).outcome).toBe("token_replaced");
    expect(await store.lookupToken(V1_ID, reminded)).toMatchObject({
      approver: "alice",
      state: "live",
      tokenHash: hashLinkToken(reminded),
    });
    const decided = await byToken(reminded);
    expect(decided).toMatchObject({ outcome: "decided", record: { status: "approved" } });
    expect(decided.record?.decisions).toMatchObject([{ by: "alice", via: "link" }]);
    expect((await byToken(reminded)).outcome).toBe("token_used");
    expect((await byToken(mailed)).outcome).toBe("token_replaced");
  });

  it("a v1 run index (a set) takes the run's next request, and cancelling the run reaches both", async () => {
    const { store } = setup();
    await writeV1(store, "f".repeat(64));
    const next = await store.register(
      input({ runId: "run-v1", jobId: "job-v1", idempotencyKey: "key-next" }),
    );
    expect(await redis.type(store.keys.run("run-v1"))).toBe("set");
    expect((await store.runRequestIds("run-v1")).sort()).toEqual([V1_ID, next.record.id].sort());
    expect((await store.cancelRun("run-v1")).sort()).toEqual([V1_ID, next.record.id].sort());
    expect((await store.require(V1_ID)).status).toBe("cancelled");
  });

  it("a v1 run index still groups a run's requests into one digest", async () => {
    const { store, clock } = setup();
    await writeV1(store, "e".repeat(64));
    const digests = new DigestStore(redis, store.keys);
    const first = await store.require(V1_ID);
    const { record } = await store.register(
      input({ runId: "run-v1", jobId: "job-v1", idempotencyKey: "k3" }),
    );
    expect(await digests.join(record, clock.now(), 5 * 60_000, HOUR)).toBe(`run:run-v1@${first.requestedAt}`);
  });
});

describe("the v2 stored request", () => {
  it("keeps only what the hash does not hold, and decodes to the record v1 would have stored", async () => {
    const { store } = setup();
    const { record } = await store.register(
      input({ scheduleId: "nightly-02", parentRunId: "run-0", flags: ["soft:rm-recursive"] }),
    );
    const raw = await redis.hgetall(store.keys.request(record.id));
    const req = JSON.parse(raw.req!) as Record<string, unknown>;
    expect(req.v).toBe(2);
    for (const dropped of ["id", "runId", "jobId", "deadline", "argsHash", "owner", "requiredApprovals"]) {
      expect(req).not.toHaveProperty(dropped);
    }
    expect(raw).not.toHaveProperty("jobId");
    expect(await redis.type(store.keys.run("run-2"))).toBe("hash");
    expect(await store.runRequestIds("run-2")).toEqual([record.id]);
    const expected: Partial<ApprovalRecord> = {
      v: 1,
      runId: "run-2",
      jobId: "run-2",
      traceId: "trace-2",
      idempotencyKey: "key-2",
      argsCanonical: ARGS,
      argsHash: sha256Hex(ARGS),
      flags: ["soft:rm-recursive"],
      scheduleId: "nightly-02",
      parentRunId: "run-0",
      owner: "carol",
      channel: "cron",
      deadline: T0 + 60_000 + HOUR,
      requiredApprovals: 1,
      forbidSelfApproval: false,
      alwaysAllowed: true,
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: null },
      ],
    };
    expect(record).toMatchObject(expected);
    expect(await store.require(record.id)).toEqual(record);
  });

  it("keeps a job id that differs from the run id, a trace id that is the run id, and a null owner", async () => {
    const { store } = setup();
    const { record } = await store.register(
      input({ runId: "run-3", jobId: "job-3", traceId: "run-3", owner: null }),
    );
    expect(record).toMatchObject({
      runId: "run-3",
      jobId: "job-3",
      traceId: "run-3",
      owner: null,
      scheduleId: null,
    });
    expect(JSON.parse((await redis.hget(store.keys.request(record.id), "req"))!)).not.toHaveProperty("tr");
    await store.cancelRun("run-3");
    const [event] = await store.readEvents("0");
    expect(event).toMatchObject({ runId: "run-3", jobId: "job-3", status: "cancelled" });
  });

  it("is corrupt, not absent or approved, when a hash field it relies on is damaged", async () => {
    const { store } = setup();
    const { record } = await store.register(input());
    const key = store.keys.request(record.id);
    const flat = Object.entries(await redis.hgetall(key)).flat();
    const damaged = (name: string, value: string) => {
      const copy = [...flat];
      copy[copy.indexOf(name) + 1] = value;
      return copy;
    };
    for (const [name, value] of [
      ["required", "x"],
      ["noself", "maybe"],
      ["req", '{"v":3}'],
    ] as const) {
      let error: unknown;
      try {
        decodeRequest(record.id, damaged(name, value), []);
      } catch (caught) {
        error = caught;
      }
      expect(isRunnerError(error) && error.code).toBe("APPROVAL_CORRUPT");
    }
  });
});
