import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApprovalNotifications,
  type ApprovalRecord,
  ApprovalStore,
  composeMessage,
  EmailNotifier,
} from "../../src/approvals/index.js";
import { createCallGuard } from "../../src/guard/index.js";
import { LinkFailures } from "../../src/http/auth/index.js";
import { createHttpServer, type FailureLimits, OperatorCredentials } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { createMetricsCollector } from "../../src/metrics/index.js";
import { sha256Hex, systemClock } from "../../src/shared/index.js";
import { freePort } from "../helpers/free-port.js";
import { startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Approver identity from outside, over real HTTP: three approvers (alice owns the runs), forbid_self_approval
 * and two approvals for exec. Who decides is the token's owner on every path; made-up, case- or
 * space-varied names never decide or count; failed credentials are throttled per address and
 * globally before any work, failed link tokens per request and token (never per address); junk
 * never reaches a request's fetch record.
 */

const TOKENS = {
  alice: "alice-own-token-0123456789abcdefghijklmnop",
  bob: "bob-own-token-0123456789abcdefghijklmnopqr",
  carol: "carol-own-token-0123456789abcdefghijklmno",
} as const;
const METRICS_TOKEN = "read-only-metrics-token-0123456789abcdefgh";

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

async function serve(limits: Partial<FailureLimits> = {}) {
  const prefix = uniquePrefix("ident");
  prefixes.push(prefix);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: {
      waitTimeoutMs: 3_600_000,
      forbidSelfApproval: true,
      requiredApprovals: { exec: 2 },
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: "bob@example.test" },
        { id: "carol", email: null },
        { id: "dave", email: "dave@example.test" },
      ],
    },
  });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = createHttpServer({
    redis,
    logger,
    keyPrefix: prefix,
    trustProxy: true,
    operators: new OperatorCredentials(Object.entries(TOKENS).map(([id, token]) => ({ id, token }))),
    metricsToken: METRICS_TOKEN,
    failureLimits: limits,
    approvals: { store, publicUrl: base },
    metrics: {
      collector: createMetricsCollector({
        redis,
        keyPrefix: prefix,
        approvals: store,
        queues: [],
        clock: systemClock,
      }),
    },
    admin: {
      keyPrefix: prefix,
      publicUrl: base,
      approvals: store,
      runs: {
        listRunPage: async () => ({ runs: [], nextCursor: null }),
        showRun: async () => Promise.reject(new Error("none")),
      },
      queues: [],
      schedules: { listWithDamaged: async () => ({ views: [], damaged: [] }) },
    },
  });
  await app.listen({ host: "127.0.0.1", port });
  return { app, store, base, prefix };
}
type Served = Awaited<ReturnType<typeof serve>>;

async function parked(s: Served): Promise<ApprovalRecord> {
  n += 1;
  const { record } = await s.store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: `trace-${n}`,
    idempotencyKey: `key-${n}`,
    tool: "exec",
    args: { command: `make deploy-${n}` },
    risk: "exec",
    reason: "deploys need two people",
    agent: "nightly",
    channel: "cron",
    owner: "alice",
  });
  return record;
}

function apiDecide(s: Served, id: string, token: string, body: Record<string, unknown>, from = "10.1.0.1") {
  return fetch(`${s.base}/api/approvals/${id}/decision`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-forwarded-for": from,
    },
    body: JSON.stringify(body),
  });
}

async function signIn(s: Served, fields: Record<string, string>, from = "10.1.0.2") {
  const res = await fetch(`${s.base}/admin/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": from },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
  const cookie = /echo_admin=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  return { res, cookie };
}

async function adminDecide(s: Served, cookie: string, id: string, decision: "approve" | "deny") {
  const page = await (await fetch(`${s.base}/admin`, { headers: { cookie: `echo_admin=${cookie}` } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
  const res = await fetch(`${s.base}/admin/approvals/${id}/decision`, {
    method: "POST",
    headers: { cookie: `echo_admin=${cookie}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ decision, csrf }).toString(),
    redirect: "manual",
  });
  return { page, location: res.headers.get("location") ?? "" };
}

describe("who decides is the token's owner, compared after one normalisation", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(async () => {
    await s.app.close();
  });

  it("made-up names never decide or count toward the quorum of two", async () => {
    const record = await parked(s);
    for (const by of ["nobody-1", "nobody-2", "carol", "Bob.", "b0b"]) {
      const res = await apiDecide(s, record.id, TOKENS.bob, { decision: "approve", by });
      expect(res.status, by).toBe(403);
      expect(((await res.json()) as { error: string }).error).toBe("IDENTITY_MISMATCH");
    }
    const after = (await s.store.get(record.id))!;
    expect(after).toMatchObject({ status: "pending", decisions: [] });
  });

  it("the owner spelled any way is refused on the API and on /admin; the owner's session cannot be renamed", async () => {
    const record = await parked(s);
    for (const by of [undefined, "alice", "Alice", "alice ", " ALICE\t", "ａｌｉｃｅ"]) {
      const res = await apiDecide(s, record.id, TOKENS.alice, { decision: "approve", ...(by ? { by } : {}) });
      expect(res.status, String(by)).toBe(403);
      expect(((await res.json()) as { outcome: string }).outcome).toBe("self_approval");
    }
    // Signing in: a typed name is not asked for, and one smuggled into the form is ignored.
    const { res, cookie } = await signIn(s, { operator: "bob", token: TOKENS.alice });
    expect(res.status).toBe(303);
    const { page, location } = await adminDecide(s, cookie!, record.id, "approve");
    expect(page).toContain('id="operator-name">alice<');
    expect(location).toContain("notice=self_approval");
    expect((await s.store.get(record.id))?.decisions).toEqual([]);
  });

  it("one person counts once whatever the path or spelling; two people make the quorum", async () => {
    const record = await parked(s);
    const first = await apiDecide(s, record.id, TOKENS.bob, { decision: "approve", by: "BOB " });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ final: false, approval: { decisions: [{ by: "bob" }] } });
    const again = await apiDecide(s, record.id, TOKENS.bob, { decision: "approve" });
    expect(again.status).toBe(409);
    // Bob's mailed link is the same person.
    const link = (await s.store.issueToken(record.id, "bob"))!;
    const page = await (await fetch(`${s.base}/approvals/${record.id}?t=${link}`)).text();
    const nonce = /name="nonce" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const viaLink = await fetch(`${s.base}/approvals/${record.id}/decision`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ t: link, nonce, decision: "approve" }).toString(),
    });
    expect(viaLink.status).toBe(409);
    expect((await s.store.get(record.id))?.status).toBe("pending");
    const { cookie } = await signIn(s, { token: TOKENS.carol });
    const { location } = await adminDecide(s, cookie!, record.id, "approve");
    expect(location).toContain("notice=approved");
    const done = (await s.store.get(record.id))!;
    expect(done.status).toBe("approved");
    expect(done.decisions.map((d) => [d.by, d.via])).toEqual([
      ["bob", "api"],
      ["carol", "api"],
    ]);
  });

  it("a dashboard session from before named operators (a typed name beside the shared token) opens nothing", async () => {
    const id = "A".repeat(43);
    const old = { v: 1, operator: "ALICE", csrf: "c".repeat(43), createdAt: Date.now() };
    await redis.set(`${s.prefix}:{admin}:session:${sha256Hex(id)}`, JSON.stringify(old), "PX", 60_000);
    const res = await fetch(`${s.base}/admin`, {
      headers: { cookie: `echo_admin=${id}` },
      redirect: "manual",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/admin/login");
  });

  it("one person racing themselves over the API (spelled four ways) and their link counts once", async () => {
    const record = await parked(s);
    const link = (await s.store.issueToken(record.id, "bob"))!;
    const page = await (await fetch(`${s.base}/approvals/${record.id}?t=${link}`)).text();
    const nonce = /name="nonce" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const spellings = ["bob", "BOB", " bob ", "ｂｏｂ"];
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) =>
        apiDecide(s, record.id, TOKENS.bob, { decision: "approve", by: spellings[i % 4] }, `10.9.0.${i}`),
      ),
      ...Array.from({ length: 4 }, () =>
        fetch(`${s.base}/approvals/${record.id}/decision`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ t: link, nonce, decision: "approve" }).toString(),
        }),
      ),
    ]);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    const after = (await s.store.get(record.id))!;
    expect(after.status).toBe("pending");
    expect(after.decisions.map((d) => d.by)).toEqual(["bob"]);
  });

  it("the read-only token reads /metrics and decides nothing", async () => {
    const record = await parked(s);
    const metrics = await fetch(`${s.base}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(metrics.status).toBe(200);
    const res = await apiDecide(s, record.id, METRICS_TOKEN, { decision: "approve" });
    expect(res.status).toBe(403);
    const { res: signedIn } = await signIn(s, { token: METRICS_TOKEN }, "10.1.0.77");
    expect(signedIn.status).toBe(401);
    expect((await s.store.get(record.id))?.decisions).toEqual([]);
  });
});

describe("failed credentials are throttled, people are not", () => {
  it("wrong bearers from one address get 429 with retry-after on /metrics, the API and the decision POST, before any work", async () => {
    const s = await serve({ perSource: 10, global: 1000 });
    try {
      const record = await parked(s);
      const codes: number[] = [];
      for (let i = 0; i < 12; i += 1) {
        const res = await fetch(`${s.base}/metrics`, {
          headers: { authorization: `Bearer wrong-${i}`, "x-forwarded-for": "10.2.0.1" },
        });
        codes.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(codes.slice(10)).toEqual([429, 429]);
      // Wrong tokens from the address keep getting 429 on every route, before any work.
      const api = await fetch(`${s.base}/api/approvals`, {
        headers: { authorization: "Bearer still-wrong", "x-forwarded-for": "10.2.0.1" },
      });
      expect(api.status).toBe(429);
      expect((await apiDecide(s, record.id, "still-wrong", { decision: "approve" }, "10.2.0.1")).status).toBe(
        429,
      );
      const body = await api.text();
      expect(body).not.toMatch(/FST_|statusCode/);
      // A valid token is checked first and never refused because of the failures, behind
      // the same address too.
      const valid = await fetch(`${s.base}/api/approvals`, {
        headers: { authorization: `Bearer ${TOKENS.bob}`, "x-forwarded-for": "10.2.0.1" },
      });
      expect(valid.status).toBe(200);
      expect((await apiDecide(s, record.id, TOKENS.bob, { decision: "approve" }, "10.2.0.1")).status).toBe(
        200,
      );
      const metrics = await fetch(`${s.base}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}`, "x-forwarded-for": "10.2.0.1" },
      });
      expect(metrics.status).toBe(200);
    } finally {
      await s.app.close();
    }
  });

  it("wrong sign-ins are throttled per address; a right token signs in from any address", async () => {
    const s = await serve({ perSource: 3, global: 1000 });
    try {
      const codes: number[] = [];
      for (const token of ["a", "b", "c", "d", TOKENS.bob])
        codes.push((await signIn(s, { token }, "10.3.0.1")).res.status);
      expect(codes).toEqual([401, 401, 401, 429, 303]);
      expect((await signIn(s, { token: TOKENS.bob }, "10.3.0.2")).res.status).toBe(303);
    } finally {
      await s.app.close();
    }
  });

  it("failures spread over many addresses hit the global limit", async () => {
    const s = await serve({ perSource: 100, global: 5 });
    try {
      for (let i = 0; i < 5; i += 1) {
        const res = await fetch(`${s.base}/api/approvals`, {
          headers: { authorization: "Bearer guess", "x-forwarded-for": `10.4.0.${i}` },
        });
        expect(res.status).toBe(401);
      }
      const next = await fetch(`${s.base}/api/approvals`, {
        headers: { authorization: "Bearer guess", "x-forwarded-for": "10.4.1.1" },
      });
      expect(next.status).toBe(429);
      expect(next.headers.get("cache-control")).toBe("no-store");
      // The global limit is a limit on failures, not a kill switch: every valid credential still
      // works while it holds, from any address.
      const api = await fetch(`${s.base}/api/approvals`, {
        headers: { authorization: `Bearer ${TOKENS.carol}`, "x-forwarded-for": "10.4.1.2" },
      });
      expect(api.status).toBe(200);
      const metrics = await fetch(`${s.base}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}`, "x-forwarded-for": "10.4.0.1" },
      });
      expect(metrics.status).toBe(200);
      expect((await signIn(s, { token: TOKENS.alice }, "10.4.2.1")).res.status).toBe(303);
      expect((await signIn(s, { token: "guess" }, "10.4.2.2")).res.status).toBe(429);
    } finally {
      await s.app.close();
    }
  });

  it("a junk flood on a link neither wipes its fetch record nor locks out the real approver behind the same address", async () => {
    const s = await serve({ perLink: 20 });
    try {
      const record = await parked(s);
      const link = (await s.store.issueToken(record.id, "bob"))!;
      const from = { "x-forwarded-for": "192.0.2.7" };
      const page = await (
        await fetch(`${s.base}/approvals/${record.id}?t=${link}`, {
          headers: { ...from, "user-agent": "Bob/1" },
        })
      ).text();
      const nonce = /name="nonce" value="([^"]+)"/.exec(page)?.[1] ?? "";
      const codes = new Set<number>();
      for (let i = 0; i < 60; i += 1) {
        const junk = `${"J".repeat(40)}${String(i).padStart(3, "0")}`;
        const get = await fetch(`${s.base}/approvals/${record.id}?t=${junk}`, {
          headers: { ...from, "user-agent": "Forged/9" },
        });
        codes.add(get.status);
        const post = await fetch(`${s.base}/approvals/${record.id}/decision`, {
          method: "POST",
          headers: { ...from, "content-type": "application/x-www-form-urlencoded", "user-agent": "Forged/9" },
          body: new URLSearchParams({ t: junk, nonce: "x", decision: "approve" }).toString(),
        });
        codes.add(post.status);
      }
      expect([...codes].sort()).toEqual([404, 429]);
      const fetches = (await s.store.get(record.id))!.fetches;
      expect(fetches.map((f) => [f.approver, f.userAgent])).toEqual([["bob", "Bob/1"]]);
      const failures = await new LinkFailures(redis, s.prefix, {
        windowMs: 60_000,
        perSource: 1,
        global: 1,
        perLink: 1,
      }).recent(200);
      expect(failures.length).toBe(120);
      expect(failures[0]).toMatchObject({ ip: "192.0.2.7", userAgent: "Forged/9", id: record.id });
      // Bob, behind the flooding address, still decides.
      const real = await fetch(`${s.base}/approvals/${record.id}/decision`, {
        method: "POST",
        headers: { ...from, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ t: link, nonce, decision: "approve" }).toString(),
      });
      expect(real.status).toBe(200);
      expect((await s.store.get(record.id))?.decisions.map((d) => d.by)).toEqual(["bob"]);
      const metrics = await (
        await fetch(`${s.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      expect(metrics).toMatch(/credential_failures_total\{kind="link"\} 120/);
    } finally {
      await s.app.close();
    }
  });

  it("unknown and known request ids answer a wrong token with the same status and body", async () => {
    const s = await serve({ perLink: 1000 });
    try {
      const record = await parked(s);
      const junk = "K".repeat(43);
      const known = await fetch(`${s.base}/approvals/${record.id}?t=${junk}`);
      const unknown = await fetch(`${s.base}/approvals/${"f".repeat(32)}?t=${junk}`);
      expect([known.status, await known.text()]).toEqual([unknown.status, await unknown.text()]);
    } finally {
      await s.app.close();
    }
  });
});

describe("what the approver sees is what runs", () => {
  it("shows a right-to-left override escaped with a warning on the page and in the mail, and the guard flags the call", async () => {
    const s = await serve();
    try {
      const args = { path: "invoice\u202efdp.exe", content: "x" };
      const guard = createCallGuard({
        execPolicy: { check: () => ({ verdict: "allow", rule: "t", reason: "t", safeBins: true }) } as never,
        resolver: { resolve: async () => [] } as never,
        pathFence: () =>
          ({ check: () => ({ verdict: "allow", rule: "path.inside", reason: "inside" }) }) as never,
        networkPolicy: "allow",
        allowedHosts: [],
      });
      const assessed = await guard.assess("write_file", args, { workspace: "/w" } as never);
      expect(assessed).toMatchObject({ verdict: "ask", rule: "args.invisible-characters" });
      n += 1;
      const { record } = await s.store.register({
        runId: `run-${n}`,
        jobId: `job-${n}`,
        traceId: `trace-${n}`,
        idempotencyKey: `key-${n}`,
        tool: "write_file",
        args,
        risk: "write",
        flags: [assessed!.rule],
        reason: assessed!.reason,
        agent: "night\u202ely",
        channel: "cron",
        owner: "alice",
      });
      const link = (await s.store.issueToken(record.id, "bob"))!;
      const page = await (await fetch(`${s.base}/approvals/${record.id}?t=${link}`)).text();
      expect(page).not.toContain("\u202e");
      expect(page).toContain("invoice\\u202efdp.exe");
      expect(page).toContain("night\\u202ely");
      expect(page).toMatch(/Warning.*invisible, direction-changing or control character/s);
      const mail = composeMessage("request", record, "https://example.test/l");
      for (const part of [mail.subject, mail.text, mail.html]) expect(part).not.toContain("\u202e");
      expect(mail.text).toContain("invoice\\u202efdp.exe");
      expect(mail.text).toContain("Warning:");
      expect(mail.subject).toContain("night\\u202ely");
    } finally {
      await s.app.close();
    }
  });
});

describe("the owner's mail under forbid_self_approval", () => {
  it("says they cannot decide and who can, and carries no link; the others' mails do", async () => {
    const smtp = await startSmtpCapture();
    const s = await serve();
    try {
      const notifications = new ApprovalNotifications({
        store: s.store,
        notifiers: [
          new EmailNotifier({
            host: smtp.host,
            port: smtp.port,
            secure: false,
            user: "",
            from: "r@example.test",
          }),
        ],
        publicUrl: s.base,
        logger,
      });
      const record = await parked(s);
      const outcome = await notifications.notify(record.id);
      expect(outcome.delivered.sort()).toEqual(["email:alice", "email:bob", "email:dave"]);
      const toAlice = await smtp.waitForMail(
        (m) => (m.text?.includes(record.id) ?? false) && JSON.stringify(m.to).includes("alice@"),
      );
      expect(toAlice.subject).toContain("waits for another approver");
      expect(toAlice.text).toContain("You cannot decide on your own run's calls");
      expect(toAlice.text).toContain("These people can decide: bob, carol, dave.");
      for (const part of [toAlice.text ?? "", String(toAlice.html ?? "")]) {
        expect(part).not.toContain("/approvals/");
        expect(part).not.toContain("?t=");
        expect(part).not.toContain("href");
      }
      const toBob = await smtp.waitForMail(
        (m) => (m.text?.includes(record.id) ?? false) && JSON.stringify(m.to).includes("bob@"),
      );
      expect(toBob.text).toMatch(new RegExp(`/approvals/${record.id}\\?t=[A-Za-z0-9_-]{43}`));
      // No token was ever issued to the owner: nothing of theirs can open the form.
      const raw = await redis.hgetall(s.store.keys.request(record.id));
      expect(
        Object.keys(raw)
          .filter((k) => k.startsWith("cur:"))
          .sort(),
      ).toEqual(["cur:bob", "cur:dave"]);
    } finally {
      await s.app.close();
      await smtp.close();
    }
  });
});
