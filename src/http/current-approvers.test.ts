import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { type ApprovalPolicy, ApprovalStore } from "../approvals/index.js";
import { createLogger } from "../logging/index.js";
import { OperatorCredentials } from "./auth/index.js";
import { createHttpServer } from "./server.js";

/**
 * Every decision path asks today's `approvers`, and a dashboard
 * session is bound to the token it was opened with. A config change takes effect when a process
 * starts with it, so "before" and "after" are two servers (and stores) over the same Redis keys.
 */

const ALICE_OLD = "alice-old-token-0123456789abcdefghijklmnop";
const ALICE_NEW = "alice-new-token-0123456789abcdefghijklmnop";
const BOB = "bob-own-token-0123456789abcdefghijklmnopqr";
let redis: Redis;
const prefixes: string[] = [];
const logger = createLogger({ level: "silent", format: "json" });
let n = 0;

beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

const ALICE = { id: "alice", email: "alice@example.test" };
const BOB_APPROVER = { id: "bob", email: "bob@example.test" };

/** One process's view: its approvers list and operators' tokens, over the shared `prefix`. */
async function server(
  prefix: string,
  approvers: ApprovalPolicy["approvers"],
  tokens: Record<string, string>,
) {
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: { waitTimeoutMs: 3_600_000, approvers },
  });
  const app = createHttpServer({
    redis,
    logger,
    keyPrefix: prefix,
    operators: new OperatorCredentials(Object.entries(tokens).map(([id, token]) => ({ id, token }))),
    approvals: { store, publicUrl: "http://127.0.0.1:8787" },
    admin: {
      keyPrefix: prefix,
      publicUrl: "http://127.0.0.1:8787",
      approvals: store,
      runs: {
        listRunPage: async () => ({ runs: [], nextCursor: null }),
        showRun: async () => Promise.reject(new Error("none")),
      },
      queues: [],
      schedules: { listWithDamaged: async () => ({ views: [], damaged: [] }) },
    },
  });
  await app.ready();
  return { app, store };
}
type Server = Awaited<ReturnType<typeof server>>;

function freshPrefix(): string {
  const prefix = uniquePrefix("current");
  prefixes.push(prefix);
  return prefix;
}

async function parked(s: Server) {
  n += 1;
  const { record } = await s.store.register({
    runId: `run-${n}`,
    jobId: `run-${n}`,
    traceId: `trace-${n}`,
    idempotencyKey: `key-${n}`,
    tool: "exec",
    args: { command: `make deploy-${n}` },
    risk: "exec",
    reason: "deploys need a person",
    agent: "nightly",
    channel: "cron",
  });
  return record;
}

async function signIn(s: Server, token: string): Promise<string> {
  const res = await s.app.inject({
    method: "POST",
    url: "/admin/login",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ token }).toString(),
  });
  expect(res.statusCode).toBe(303);
  const cookie = /echo_admin=([^;]+)/.exec(String(res.headers["set-cookie"] ?? ""))?.[1];
  expect(cookie).toBeDefined();
  return cookie!;
}

const dashboard = (s: Server, cookie: string) =>
  s.app.inject({ method: "GET", url: "/admin", headers: { cookie: `echo_admin=${cookie}` } });

describe("a removed approver's mailed link decides nothing", () => {
  it("its page shows no form, its POST is refused with 403, and the request stays pending", async () => {
    const prefix = freshPrefix();
    const before = await server(prefix, [ALICE, BOB_APPROVER], {});
    const record = await parked(before);
    const token = (await before.store.issueToken(record.id, "alice"))!;
    const page = await before.app.inject({ method: "GET", url: `/approvals/${record.id}?t=${token}` });
    const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)?.[1] ?? "";
    expect(nonce).not.toBe("");
    // Restarted with alice taken off the list: the page she already opened, and her link, decide nothing.
    const after = await server(prefix, [BOB_APPROVER], {});
    const post = await after.app.inject({
      method: "POST",
      url: `/approvals/${record.id}/decision`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ t: token, nonce, decision: "approve" }).toString(),
    });
    expect(post.statusCode).toBe(403);
    expect(post.body).toContain("no longer on the approvers list");
    const again = await after.app.inject({ method: "GET", url: `/approvals/${record.id}?t=${token}` });
    expect(again.statusCode).toBe(403);
    expect(again.body).not.toContain('<form method="post"');
    expect(again.body).toContain("no longer on the approvers list");
    const steps = await after.app.inject({ method: "GET", url: `/approvals/${record.id}/steps?t=${token}` });
    expect(steps.statusCode).toBe(403);
    expect(
      await after.store.decide({ id: record.id, actor: { kind: "token", token }, decision: "approve" }),
    ).toMatchObject({ outcome: "approver_removed" });
    const stored = await after.store.get(record.id);
    expect(stored?.status).toBe("pending");
    expect(stored?.decisions).toEqual([]);
    // Someone still on the list decides as before.
    const bobToken = (await after.store.issueToken(record.id, "bob"))!;
    expect(
      await after.store.decide({
        id: record.id,
        actor: { kind: "token", token: bobToken },
        decision: "approve",
      }),
    ).toMatchObject({ outcome: "decided", final: true });
  });

  it("the JSON API and the CLI path refuse a person no longer on the list", async () => {
    const prefix = freshPrefix();
    // alice keeps an operator token but is off the approvers list (the token outlived the edit).
    const after = await server(prefix, [BOB_APPROVER], { alice: ALICE_OLD, bob: BOB });
    const record = await parked(after);
    const res = await after.app.inject({
      method: "POST",
      url: `/api/approvals/${record.id}/decision`,
      headers: { authorization: `Bearer ${ALICE_OLD}` },
      payload: { decision: "approve" },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ outcome: "not_an_approver" });
    expect(
      await after.store.decide({
        id: record.id,
        actor: { kind: "operator", id: "alice", via: "cli" },
        decision: "approve",
      }),
    ).toMatchObject({ outcome: "not_an_approver" });
    expect((await after.store.get(record.id))?.decisions).toEqual([]);
  });
});

describe("an /admin session is bound to the token it was opened with", () => {
  it("ends when the operator's token is rotated, and a session of the current token stays open", async () => {
    const prefix = freshPrefix();
    const before = await server(prefix, [ALICE, BOB_APPROVER], { alice: ALICE_OLD, bob: BOB });
    const aliceCookie = await signIn(before, ALICE_OLD);
    const bobCookie = await signIn(before, BOB);
    expect((await dashboard(before, aliceCookie)).statusCode).toBe(200);
    // Restarted with alice's token rotated (bob's unchanged).
    const after = await server(prefix, [ALICE, BOB_APPROVER], { alice: ALICE_NEW, bob: BOB });
    const record = await parked(after);
    const stale = await dashboard(after, aliceCookie);
    expect(stale.statusCode).toBe(303);
    expect(stale.headers.location).toBe("/admin/login");
    const post = await after.app.inject({
      method: "POST",
      url: `/admin/approvals/${record.id}/decision`,
      headers: { cookie: `echo_admin=${aliceCookie}`, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ decision: "approve", csrf: "x" }).toString(),
    });
    expect(post.statusCode).toBe(401);
    expect((await after.store.get(record.id))?.decisions).toEqual([]);
    // Ended everywhere: a process still on the old config no longer knows the session either.
    expect((await dashboard(before, aliceCookie)).statusCode).toBe(303);
    expect((await dashboard(after, bobCookie)).statusCode).toBe(200);
    const fresh = await signIn(after, ALICE_NEW);
    expect((await dashboard(after, fresh)).statusCode).toBe(200);
  });
});
