import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { ApprovalStore } from "../approvals/index.js";
import { createLogger } from "../logging/index.js";
import { OperatorCredentials } from "./auth/index.js";
import { createHttpServer } from "./server.js";

/**
 * One person racing their own votes over every path they have — the JSON
 * API, their mailed link and an /admin session — never makes a quorum of two. The requests go
 * through one server at once (inject), so their reads of the request come before any decision is
 * written: the store's read-first check sees no earlier vote, and only the decide script's own
 * `already_voted` comparison stands between one person and a quorum. This test fails without it.
 */

const TOKENS = {
  bob: "bob-own-token-0123456789abcdefghijklmnopqr",
  carol: "carol-own-token-0123456789abcdefghijklmno",
} as const;
let redis: Redis;
let prefix: string;
const logger = createLogger({ level: "silent", format: "json" });

beforeAll(() => {
  redis = testRedisClient();
  prefix = uniquePrefix("selfrace");
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe("one person racing their own votes", () => {
  it("over the API, their link and /admin at once counts once; a second person makes the quorum", async () => {
    const store = new ApprovalStore({
      redis,
      keyPrefix: prefix,
      policy: {
        waitTimeoutMs: 3_600_000,
        requiredApprovals: { exec: 2 },
        approvers: [
          { id: "bob", email: "bob@example.test" },
          { id: "carol", email: null },
        ],
      },
    });
    const app = createHttpServer({
      redis,
      logger,
      keyPrefix: prefix,
      operators: new OperatorCredentials(Object.entries(TOKENS).map(([id, token]) => ({ id, token }))),
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
    const { record } = await store.register({
      runId: "run-1",
      jobId: "run-1",
      traceId: "trace-1",
      idempotencyKey: "key-1",
      tool: "exec",
      args: { command: "make deploy" },
      risk: "exec",
      reason: "deploys need two people",
      agent: "nightly",
      channel: "cron",
    });
    // Bob's three ways in, each ready to press: a link page with its nonce, a signed-in dashboard.
    const link = (await store.issueToken(record.id, "bob"))!;
    const page = await app.inject({ method: "GET", url: `/approvals/${record.id}?t=${link}` });
    const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)?.[1] ?? "";
    const login = await app.inject({
      method: "POST",
      url: "/admin/login",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ token: TOKENS.bob }).toString(),
    });
    const cookie = `echo_admin=${/echo_admin=([^;]+)/.exec(String(login.headers["set-cookie"]))?.[1]}`;
    const dashboard = await app.inject({ method: "GET", url: "/admin", headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(dashboard.body)?.[1] ?? "";
    expect([nonce, csrf].every((v) => v.length > 0)).toBe(true);

    const form = { "content-type": "application/x-www-form-urlencoded" };
    const replies = await Promise.all([
      ...Array.from({ length: 8 }, () =>
        app.inject({
          method: "POST",
          url: `/api/approvals/${record.id}/decision`,
          headers: { authorization: `Bearer ${TOKENS.bob}` },
          payload: { decision: "approve" },
        }),
      ),
      ...Array.from({ length: 3 }, () =>
        app.inject({
          method: "POST",
          url: `/approvals/${record.id}/decision`,
          headers: form,
          payload: new URLSearchParams({ t: link, nonce, decision: "approve" }).toString(),
        }),
      ),
      ...Array.from({ length: 3 }, () =>
        app.inject({
          method: "POST",
          url: `/admin/approvals/${record.id}/decision`,
          headers: { ...form, cookie },
          payload: new URLSearchParams({ decision: "approve", csrf }).toString(),
        }),
      ),
    ]);
    const api = replies.slice(0, 8);
    const links = replies.slice(8, 11);
    const admin = replies.slice(11);
    const recorded =
      api.filter((r) => r.statusCode === 200).length +
      links.filter((r) => r.statusCode === 200).length +
      admin.filter((r) => /notice=(recorded|approved)$/.test(String(r.headers.location))).length;
    expect(recorded, "decisions recorded for bob").toBe(1);
    const after = (await store.get(record.id))!;
    expect(after.status).toBe("pending");
    expect(after.decisions.map((d) => d.by)).toEqual(["bob"]);
    for (const r of api.filter((r) => r.statusCode !== 200)) {
      expect(r.statusCode).toBe(409);
      expect(r.json()).toMatchObject({ outcome: "already_voted" });
    }

    const carol = await app.inject({
      method: "POST",
      url: `/api/approvals/${record.id}/decision`,
      headers: { authorization: `Bearer ${TOKENS.carol}` },
      payload: { decision: "approve" },
    });
    expect(carol.json()).toMatchObject({ outcome: "decided", final: true, approval: { status: "approved" } });
    expect((await store.get(record.id))?.decisions.map((d) => d.by)).toEqual(["bob", "carol"]);
    await app.close();
  });
});
