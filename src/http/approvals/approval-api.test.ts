import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { type ApprovalRecord, ApprovalStore } from "../../approvals/index.js";
import { createLogger } from "../../logging/index.js";
import { ManualClock } from "../../shared/index.js";
import { OperatorCredentials } from "../auth/index.js";
import { createHttpServer } from "../server.js";

/**
 * Approvals and denials as the worker's promoter reads them to wake runs: the store's events
 * stream (which also carries cancellations and expiries, left out here).
 */
async function decidedOnStream(store: ApprovalStore): Promise<{ id: string; status: string }[]> {
  return (await store.readEvents("0"))
    .filter((e) => e.status === "approved" || e.status === "denied")
    .map((e) => ({ id: e.id, status: e.status }));
}

const TOKEN = "ops-token-for-tests-0123456789-abcdefgh";
const DEV_TOKEN = "dev-token-for-tests-0123456789-abcdefgh";
const CAROL_TOKEN = "carol-token-for-tests-0123456789-abcdef";
const METRICS_TOKEN = "metrics-token-for-tests-0123456789-abcd";
let redis: Redis;
const prefixes: string[] = [];
let n = 0;

beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function setup(withTokens = true) {
  const prefix = uniquePrefix("apprapi");
  prefixes.push(prefix);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock: new ManualClock(1_700_000_000_000),
    policy: {
      waitTimeoutMs: 3_600_000,
      forbidSelfApproval: true,
      approvers: [
        { id: "alice", email: null },
        { id: "ops", email: null },
        { id: "dev", email: null },
        { id: "carol", email: null },
      ],
    },
  });
  const app = createHttpServer({
    redis,
    logger: createLogger({ level: "silent", format: "json" }),
    operators: new OperatorCredentials(
      withTokens
        ? [
            { id: "ops", token: TOKEN },
            { id: "dev", token: DEV_TOKEN },
            { id: "carol", token: CAROL_TOKEN },
          ]
        : [],
    ),
    metricsToken: METRICS_TOKEN,
    approvals: {
      store,
      publicUrl: "http://127.0.0.1:8787",
    },
  });
  await app.ready();
  return { app, store };
}

async function register(store: ApprovalStore) {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: "t",
    idempotencyKey: `k-${n}`,
    tool: "exec",
    args: { command: "make" },
    risk: "exec",
    reason: "r",
    agent: "a",
    channel: "cron",
    owner: "carol",
  });
  return record;
}

const auth = { authorization: `Bearer ${TOKEN}` };

describe("approval JSON API", () => {
  it.each([
    ["no Authorization header", {}],
    ["a wrong token", { authorization: "Bearer nope" }],
    ["a token of another scheme", { authorization: `Basic ${TOKEN}` }],
  ])("refuses %s with 401", async (_name, headers) => {
    const { app } = await setup();
    const res = await app.inject({ method: "GET", url: "/api/approvals", headers });
    expect(res.statusCode).toBe(401);
    expect(res.headers["www-authenticate"]).toContain("Bearer");
  });

  it("refuses everything with 503 when no operator has a token", async () => {
    const { app, store } = await setup(false);
    const record = await register(store);
    const res = await app.inject({
      method: "POST",
      url: `/api/approvals/${record.id}/decision`,
      headers: { authorization: "Bearer " },
      payload: { decision: "approve", by: "ops" },
    });
    expect(res.statusCode).toBe(503);
    expect((await store.get(record.id))?.status).toBe("pending");
  });

  it("lists pending requests and shows one", async () => {
    const { app, store } = await setup();
    const record = await register(store);
    const list = await app.inject({ method: "GET", url: "/api/approvals?status=pending", headers: auth });
    expect(list.statusCode).toBe(200);
    expect(list.json().approvals.map((a: ApprovalRecord) => a.id)).toEqual([record.id]);
    const show = await app.inject({ method: "GET", url: `/api/approvals/${record.id}`, headers: auth });
    expect(show.json().approval).toMatchObject({
      id: record.id,
      argsHash: record.argsHash,
      status: "pending",
    });
    const missing = await app.inject({
      method: "GET",
      url: `/api/approvals/${"0".repeat(32)}`,
      headers: auth,
    });
    expect(missing.statusCode).toBe(404);
    const bad = await app.inject({ method: "GET", url: "/api/approvals?status=maybe", headers: auth });
    expect(bad.statusCode).toBe(400);
  });

  it("decides as the token's owner, puts the decision on the events stream, and refuses a second decision with the first", async () => {
    const { app, store } = await setup();
    const record = await register(store);
    const url = `/api/approvals/${record.id}/decision`;
    const first = await app.inject({
      method: "POST",
      url,
      headers: auth,
      payload: { decision: "deny", by: "ops", comment: "no" },
    });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ outcome: "decided", final: true, approval: { status: "denied" } });
    expect((await decidedOnStream(store)).map((r) => r.status)).toEqual(["denied"]);
    const second = await app.inject({
      method: "POST",
      url,
      headers: { authorization: `Bearer ${DEV_TOKEN}` },
      payload: { decision: "approve" },
    });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({
      outcome: "not_pending",
      approval: { decisions: [{ by: "ops", via: "api" }] },
    });
  });

  it.each([
    ["no body", undefined, 400],
    ["an unknown decision", { decision: "maybe", by: "ops" }, 400],
    ["an extra field", { decision: "approve", by: "ops", as: "admin" }, 400],
    ["a `by` naming someone else", { decision: "approve", by: "dev" }, 403],
    ["a `by` naming a made-up person", { decision: "approve", by: "nobody-1" }, 403],
  ])("does not approve with %s", async (_name, payload, code) => {
    const { app, store } = await setup();
    const record = await register(store);
    const res = await app.inject({
      method: "POST",
      url: `/api/approvals/${record.id}/decision`,
      headers: auth,
      payload,
    });
    expect(res.statusCode).toBe(code);
    expect((await store.get(record.id))?.status).toBe("pending");
  });

  it.each([["carol"], ["Carol "], ["CAROL"]])(
    "refuses the run's owner under forbid_self_approval, whatever `by` says (%j)",
    async (by) => {
      const { app, store } = await setup();
      const record = await register(store);
      const res = await app.inject({
        method: "POST",
        url: `/api/approvals/${record.id}/decision`,
        headers: { authorization: `Bearer ${CAROL_TOKEN}` },
        payload: { decision: "approve", by },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().outcome).toBe("self_approval");
      expect((await store.get(record.id))?.status).toBe("pending");
    },
  );

  it("accepts a `by` that names the token's owner in another spelling, recording the configured id", async () => {
    const { app, store } = await setup();
    const record = await register(store);
    const res = await app.inject({
      method: "POST",
      url: `/api/approvals/${record.id}/decision`,
      headers: auth,
      payload: { decision: "approve", by: " OPS" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().approval.decisions.map((d: { by: string }) => d.by)).toEqual(["ops"]);
  });

  it("refuses the read-only metrics token with 403: it decides and reads nothing here", async () => {
    const { app, store } = await setup();
    const record = await register(store);
    for (const [method, url] of [
      ["GET", "/api/approvals"],
      ["POST", `/api/approvals/${record.id}/decision`],
    ] as const) {
      const res = await app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        ...(method === "POST" ? { payload: { decision: "approve" } } : {}),
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe("FORBIDDEN");
    }
    expect((await store.get(record.id))?.status).toBe("pending");
  });

  it("lists the healthy requests beside a damaged one, which is named in `damaged` and decides nothing", async () => {
    const { app, store } = await setup();
    const healthy = await register(store);
    const damaged = await register(store);
    await redis.hset(store.keys.request(damaged.id), "req", "{not json");
    for (const status of ["pending", "all"]) {
      const list = await app.inject({ method: "GET", url: `/api/approvals?status=${status}`, headers: auth });
      expect(list.statusCode).toBe(200);
      expect(list.json().approvals.map((a: ApprovalRecord) => a.id)).toEqual([healthy.id]);
      expect(list.json().damaged).toEqual([
        {
          id: damaged.id,
          code: "APPROVAL_CORRUPT",
          message: expect.stringContaining("its req field is not valid JSON"),
        },
      ]);
    }
    const show = await app.inject({ method: "GET", url: `/api/approvals/${damaged.id}`, headers: auth });
    expect(show.statusCode).toBe(409);
    expect(show.json()).toMatchObject({
      error: "APPROVAL_CORRUPT",
      message: expect.stringContaining(damaged.id),
    });
    const decide = await app.inject({
      method: "POST",
      url: `/api/approvals/${damaged.id}/decision`,
      headers: auth,
      payload: { decision: "approve" },
    });
    expect(decide.statusCode).toBe(409);
    expect(decide.json().error).toBe("APPROVAL_CORRUPT");
    expect(await decidedOnStream(store)).toEqual([]);
    const approved = await app.inject({
      method: "POST",
      url: `/api/approvals/${healthy.id}/decision`,
      headers: auth,
      payload: { decision: "approve" },
    });
    expect(approved.json()).toMatchObject({ outcome: "decided", final: true });
  });
});
