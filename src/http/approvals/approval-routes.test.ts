import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { ApprovalStore } from "../../approvals/index.js";
import { createLogger } from "../../logging/index.js";
import { ManualClock } from "../../shared/index.js";
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

const T0 = 1_700_000_000_000;
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

async function setup(options: { perLink?: number } = {}) {
  const prefix = uniquePrefix("apprhttp");
  prefixes.push(prefix);
  const clock = new ManualClock(T0);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock,
    policy: {
      waitTimeoutMs: 3_600_000,
      approvers: [
        { id: "alice", email: "a@example.test" },
        { id: "bob", email: null },
      ],
    },
  });
  const logger = createLogger({ level: "silent", format: "json" });
  const app = createHttpServer({
    redis,
    logger,
    failureLimits: { perLink: options.perLink ?? 100 },
    approvals: {
      store,
      publicUrl: "http://127.0.0.1:8787",
    },
  });
  await app.ready();
  return { app, store, clock };
}

type Setup = Awaited<ReturnType<typeof setup>>;

async function request(s: Setup, args: unknown = { command: "echo '<script>alert(1)</script>'" }) {
  n += 1;
  const { record } = await s.store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: "trace",
    idempotencyKey: `k-${n}`,
    tool: "exec",
    args,
    risk: "exec",
    reason: "a <b>bold</b> reason",
    agent: "nightly",
    channel: "cron",
  });
  const token = (await s.store.issueToken(record.id, "alice"))!;
  return { record, token };
}

async function openPage(s: Setup, id: string, token: string) {
  const res = await s.app.inject({
    method: "GET",
    url: `/approvals/${id}?t=${token}`,
    headers: { "user-agent": "TestBrowser/1" },
  });
  const nonce = /name="nonce" value="([^"]+)"/.exec(res.body)?.[1];
  return { res, nonce };
}

function post(s: Setup, id: string, fields: Record<string, string>) {
  return s.app.inject({
    method: "POST",
    url: `/approvals/${id}/decision`,
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": "TestBrowser/1" },
    payload: new URLSearchParams(fields).toString(),
  });
}

const statusOf = async (s: Setup, id: string) => (await s.store.get(id))?.status;

describe("GET /approvals/:id", () => {
  it("renders the exact call, escaped, with strict headers, and changes nothing", async () => {
    const s = await setup();
    const { record, token } = await request(s);
    const { res, nonce } = await openPage(s, record.id, token);
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.headers["content-security-policy"]).not.toContain("unsafe-inline");
    expect(res.body).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(res.body).not.toContain("<script");
    expect(res.body).toContain("a &lt;b&gt;bold&lt;/b&gt; reason");
    expect(res.body).toContain(record.argsHash);
    expect(res.body).toContain("alice (you)");
    expect(res.body).toContain("2023-11-14T23:13:20Z");
    expect(nonce).toBeTruthy();
    const after = (await s.store.get(record.id))!;
    expect(after).toMatchObject({ status: "pending", decisions: [] });
    expect(after.fetches[0]).toMatchObject({ method: "GET", userAgent: "TestBrowser/1", approver: "alice" });
  });

  it("answers HEAD like GET without a body and records the fetch", async () => {
    const s = await setup();
    const { record, token } = await request(s);
    const res = await s.app.inject({ method: "HEAD", url: `/approvals/${record.id}?t=${token}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe("");
    expect(res.headers["cache-control"]).toBe("no-store");
    const after = (await s.store.get(record.id))!;
    expect(after.status).toBe("pending");
    expect(after.fetches[0]?.method).toBe("HEAD");
  });

  it("answers a replaced link with 410 and says when the newer message that replaced it was sent", async () => {
    const s = await setup();
    const { record, token } = await request(s);
    s.clock.advance(90_000);
    const newer = (await s.store.issueToken(record.id, "alice"))!;
    const res = await s.app.inject({ method: "GET", url: `/approvals/${record.id}?t=${token}` });
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain("replaced by a newer message to you, sent at 2023-11-14T22:14:50Z");
    const steps = await s.app.inject({ method: "GET", url: `/approvals/${record.id}/steps?t=${token}` });
    expect(steps.statusCode).toBe(410);
    expect((await openPage(s, record.id, newer)).res.statusCode).toBe(200);
  });

  it("shows the same plain page for an unknown request and a wrong token", async () => {
    const s = await setup();
    const { record } = await request(s);
    const forged = "A".repeat(43);
    const unknown = await s.app.inject({ method: "GET", url: `/approvals/${"0".repeat(32)}?t=${forged}` });
    const wrong = await s.app.inject({ method: "GET", url: `/approvals/${record.id}?t=${forged}` });
    expect(unknown.statusCode).toBe(404);
    expect(wrong.statusCode).toBe(404);
    expect(wrong.body).toBe(unknown.body);
    expect(wrong.body).not.toContain(record.id);
    expect(wrong.body).not.toContain("exec");
    expect(wrong.headers["referrer-policy"]).toBe("no-referrer");
  });

  it("serves the stylesheet the pages link to", async () => {
    const s = await setup();
    const res = await s.app.inject({ method: "GET", url: "/assets/approval.css" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/css");
  });
});

describe("POST /approvals/:id/decision", () => {
  it("decides with the token and nonce, puts the decision on the events stream, and a second click shows who decided", async () => {
    const s = await setup();
    const { record, token } = await request(s);
    const { nonce } = await openPage(s, record.id, token);
    const res = await post(s, record.id, {
      t: token,
      nonce: nonce!,
      decision: "approve",
      comment: "looks fine",
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("Your decision (approve) was recorded");
    expect(await statusOf(s, record.id)).toBe("approved");
    expect((await decidedOnStream(s.store)).map((r) => [r.id, r.status])).toEqual([[record.id, "approved"]]);
    const again = await post(s, record.id, { t: token, nonce: nonce!, decision: "deny" });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain("<b>alice</b> approved at 2023-11-14T22:13:20Z");
    const reopened = await openPage(s, record.id, token);
    expect(reopened.res.body).toContain("You have already decided with this link.");
    expect(reopened.nonce).toBeUndefined();
    expect(await statusOf(s, record.id)).toBe("approved");
  });

  it("shows a cancelled run's request as no longer pending and refuses its decision", async () => {
    const s = await setup();
    const { record, token } = await request(s);
    const { nonce } = await openPage(s, record.id, token);
    await s.store.cancelRun(record.runId);
    const page = await openPage(s, record.id, token);
    expect(page.res.body).toContain("This request is no longer pending");
    expect(page.res.body).toContain("cancelled");
    const res = await post(s, record.id, { t: token, nonce: nonce!, decision: "approve" });
    expect(res.statusCode).toBe(409);
    expect(await statusOf(s, record.id)).toBe("cancelled");
    expect(await decidedOnStream(s.store)).toEqual([]);
  });

  it("refuses an expired request", async () => {
    const s = await setup();
    const { record, token } = await request(s);
    const { nonce } = await openPage(s, record.id, token);
    s.clock.set(record.deadline);
    const res = await post(s, record.id, { t: token, nonce: nonce!, decision: "approve" });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain("expired");
    expect(await statusOf(s, record.id)).toBe("expired");
  });

  it.each([
    [
      "a forged token",
      async (s: Setup, r: { id: string; token: string; nonce: string }) =>
        post(s, r.id, { t: "B".repeat(43), nonce: r.nonce, decision: "approve" }),
      404,
    ],
    [
      "no token",
      async (s: Setup, r: { id: string; token: string; nonce: string }) =>
        post(s, r.id, { nonce: r.nonce, decision: "approve" }),
      400,
    ],
    [
      "no nonce",
      async (s: Setup, r: { id: string; token: string; nonce: string }) =>
        post(s, r.id, { t: r.token, decision: "approve" }),
      400,
    ],
    [
      "a made-up nonce",
      async (s: Setup, r: { id: string; token: string; nonce: string }) =>
        post(s, r.id, { t: r.token, nonce: `${T0}.${"x".repeat(43)}`, decision: "approve" }),
      403,
    ],
    [
      "an unknown decision",
      async (s: Setup, r: { id: string; token: string; nonce: string }) =>
        post(s, r.id, { t: r.token, nonce: r.nonce, decision: "approve_everything" }),
      400,
    ],
    [
      "a GET on the decision URL",
      async (s: Setup, r: { id: string; token: string; nonce: string }) =>
        s.app.inject({
          method: "GET",
          url: `/approvals/${r.id}/decision?t=${r.token}&nonce=${r.nonce}&decision=approve`,
        }),
      405,
    ],
    [
      "a HEAD on the decision URL",
      async (s: Setup, r: { id: string; token: string; nonce: string }) =>
        s.app.inject({ method: "HEAD", url: `/approvals/${r.id}/decision?t=${r.token}&decision=approve` }),
      405,
    ],
  ])("does not approve with %s", async (_name, attack, code) => {
    const s = await setup();
    const { record, token } = await request(s);
    const { nonce } = await openPage(s, record.id, token);
    const res = await attack(s, { id: record.id, token, nonce: nonce! });
    expect(res.statusCode).toBe(code);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(await statusOf(s, record.id)).toBe("pending");
    expect(await decidedOnStream(s.store)).toEqual([]);
  });

  it("does not approve a request with a valid token and nonce of another request", async () => {
    const s = await setup();
    const mine = await request(s);
    const other = await request(s);
    const { nonce } = await openPage(s, other.record.id, other.token);
    const res = await post(s, mine.record.id, { t: other.token, nonce: nonce!, decision: "approve" });
    expect(res.statusCode).toBe(404);
    expect(await statusOf(s, mine.record.id)).toBe("pending");
    expect(await statusOf(s, other.record.id)).toBe("pending");
  });

  it("records exactly one decision when the same form is posted 20 times at once", async () => {
    const s = await setup();
    const { record, token } = await request(s);
    const { nonce } = await openPage(s, record.id, token);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(s, record.id, { t: token, nonce: nonce!, decision: i % 2 ? "deny" : "approve" }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.statusCode === 409)).toHaveLength(19);
    expect((await s.store.get(record.id))?.decisions).toHaveLength(1);
    expect(await decidedOnStream(s.store)).toHaveLength(1);
  });

  it("throttles failed tokens per request with a plain 429 page, and a valid token still decides", async () => {
    const s = await setup({ perLink: 3 });
    const { record, token } = await request(s);
    const { nonce } = await openPage(s, record.id, token);
    const codes: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      codes.push(
        (await post(s, record.id, { t: `${"C".repeat(42)}${i}`, nonce: "x", decision: "approve" }))
          .statusCode,
      );
    }
    expect(codes).toEqual([404, 404, 404, 429]);
    const limited = await post(s, record.id, { t: "C".repeat(43), nonce: "x", decision: "approve" });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.headers["content-type"]).toContain("text/html");
    expect(limited.headers["content-security-policy"]).toContain("default-src 'none'");
    const real = await post(s, record.id, { t: token, nonce: nonce!, decision: "approve" });
    expect(real.statusCode).toBe(200);
    expect(await statusOf(s, record.id)).toBe("approved");
  });
});

describe("client errors over real HTTP", () => {
  async function listening() {
    const s = await setup();
    await s.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = s.app.server.address() as { port: number };
    return { ...s, base: `http://127.0.0.1:${port}` };
  }

  it.each([
    [
      "a form over the 16 KB body limit",
      "application/x-www-form-urlencoded",
      (f: string) => `${f}&pad=${"x".repeat(17 * 1024)}`,
      413,
    ],
    ["a body of a type no parser takes", "application/xml", (f: string) => `<f>${f}</f>`, 415],
    ["a body that is not JSON though it says so", "application/json", (f: string) => f, 415],
    [
      "the same fields as JSON (the page documents the form only)",
      "application/json",
      (f: string) => JSON.stringify(Object.fromEntries(new URLSearchParams(f))),
      415,
    ],
    ["the form as plain text", "text/plain", (f: string) => f, 415],
  ] as const)(
    "answers %s with its own status and a plain page, deciding nothing",
    async (_name, type, body, code) => {
      const s = await listening();
      try {
        const { record, token } = await request(s);
        const { nonce } = await openPage(s, record.id, token);
        const form = new URLSearchParams({ t: token, nonce: nonce!, decision: "approve" }).toString();
        const res = await fetch(`${s.base}/approvals/${record.id}/decision`, {
          method: "POST",
          headers: { "content-type": type },
          body: body(form),
        });
        const page = await res.text();
        expect(res.status).toBe(code);
        expect(res.headers.get("content-type")).toContain("text/html");
        expect(res.headers.get("cache-control")).toBe("no-store");
        expect(page).toContain("Nothing was decided");
        // Plain: no Fastify error code, stack or internal message.
        expect(page).not.toMatch(/FST_|Error:|at \w+ \(|too large"/);
        expect(await statusOf(s, record.id)).toBe("pending");
        expect(await decidedOnStream(s.store)).toEqual([]);
      } finally {
        await s.app.close();
      }
    },
  );
});
