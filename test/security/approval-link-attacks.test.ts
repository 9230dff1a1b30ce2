import { Writable } from "node:stream";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApprovalNotifications,
  type ApprovalRecord,
  ApprovalStore,
  EmailNotifier,
} from "../../src/approvals/index.js";
import { createHttpServer } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { freePort } from "../helpers/free-port.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Attacks on the mailed approval link over real HTTP, with the link taken from a mail at a real
 * SMTP server. The approvals issue's own attack tests (forged token, another request's token, used
 * token, expiry, GET/HEAD on the decision URL, missing token or nonce, cancelled run, 20 concurrent
 * POSTs) run in this suite by path (vitest.security.config.ts); these add what they leave out:
 * every one-character tampering of the token and the id, replaying the decided form, a nonce of
 * another approver's page (CSRF with half the secrets), the owner's own link under
 * forbid_self_approval, and that no token or nonce reaches a log line or Redis in clear.
 */

let redis: Redis;
let smtp: SmtpCapture;
let app: ReturnType<typeof createHttpServer>;
let store: ApprovalStore;
let notifications: ApprovalNotifications;
let publicUrl: string;
const prefix = uniquePrefix("secappr");
const logLines: string[] = [];
let n = 0;

beforeAll(async () => {
  redis = testRedisClient();
  smtp = await startSmtpCapture();
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  // Every log line of the notifier, the HTTP server and the store, at the most verbose level.
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: "trace", format: "json", destination: sink });
  store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: {
      waitTimeoutMs: 3_600_000,
      forbidSelfApproval: true,
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: "bob@example.test" },
      ],
    },
  });
  notifications = new ApprovalNotifications({
    store,
    notifiers: [
      new EmailNotifier({
        host: smtp.host,
        port: smtp.port,
        secure: false,
        user: "",
        from: "runner@example.test",
      }),
    ],
    publicUrl,
    logger,
  });
  app = createHttpServer({
    redis,
    logger,
    failureLimits: { perLink: 10_000 },
    approvals: { store, publicUrl },
  });
  await app.listen({ host: "127.0.0.1", port });
});

afterAll(async () => {
  await app?.close();
  await smtp?.close();
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function parkedCall(owner: string | null = null): Promise<ApprovalRecord> {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: `trace-${n}`,
    idempotencyKey: `key-${n}`,
    tool: "exec",
    args: { command: `rm -rf build-${n}` },
    risk: "exec",
    reason: "recursive delete needs a person",
    agent: "nightly",
    channel: "cron",
    owner,
  });
  await notifications.notify(record.id);
  return record;
}

async function linkFor(record: ApprovalRecord, to: string): Promise<{ link: string; token: string }> {
  const mail = await smtp.waitForMail(
    (m) => (m.text?.includes(record.id) ?? false) && JSON.stringify(m.to).includes(to),
  );
  const link = new RegExp(`${publicUrl}/approvals/${record.id}\\?t=([A-Za-z0-9_-]{43})`).exec(
    mail.text ?? "",
  );
  expect(link, "the mail carries a personal link").not.toBeNull();
  return { link: link![0], token: link![1]! };
}

async function open(url: string): Promise<{ status: number; body: string; nonce: string | undefined }> {
  const res = await fetch(url, { redirect: "manual" });
  const body = await res.text();
  return { status: res.status, body, nonce: /name="nonce" value="([^"]+)"/.exec(body)?.[1] };
}

async function post(id: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${publicUrl}/approvals/${id}/decision`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
  return { status: res.status, body: await res.text() };
}

const statusOf = async (id: string) => (await store.get(id))?.status;

/** The same token with one character changed at `i`. */
function tamper(token: string, i: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const c = token[i] as string;
  const other = alphabet[(alphabet.indexOf(c) + 1 + (i % 60)) % alphabet.length] as string;
  return token.slice(0, i) + other + token.slice(i + 1);
}

describe("approval link attacks over real HTTP", () => {
  it("a link with any one character of its token or id changed shows nothing and decides nothing", async () => {
    const record = await parkedCall();
    const { token } = await linkFor(record, "alice");
    const page = await open(`${publicUrl}/approvals/${record.id}?t=${token}`);
    expect(page.nonce).toBeDefined();
    const invalid = await open(`${publicUrl}/approvals/${record.id}?t=${tamper(token, 0)}`);
    expect(invalid.status).toBe(404);
    for (let i = 0; i < token.length; i++) {
      const forged = tamper(token, i);
      const got = await open(`${publicUrl}/approvals/${record.id}?t=${forged}`);
      expect([got.status, got.body], `token position ${i}`).toEqual([404, invalid.body]);
      const res = await post(record.id, { t: forged, nonce: page.nonce!, decision: "approve" });
      expect(res.status, `token position ${i}`).toBe(404);
    }
    for (let i = 0; i < record.id.length; i++) {
      const id = record.id.slice(0, i) + (record.id[i] === "0" ? "1" : "0") + record.id.slice(i + 1);
      const got = await open(`${publicUrl}/approvals/${id}?t=${token}`);
      expect([got.status, got.body], `id position ${i}`).toEqual([404, invalid.body]);
      const res = await post(id, { t: token, nonce: page.nonce!, decision: "approve" });
      expect(res.status, `id position ${i}`).toBe(404);
    }
    expect(await statusOf(record.id)).toBe("pending");
    expect((await store.get(record.id))?.decisions).toEqual([]);
  });

  it("replaying the decided form (same token and nonce) is refused and shows the first decision", async () => {
    const record = await parkedCall();
    const { link, token } = await linkFor(record, "alice");
    const { nonce } = await open(link);
    const first = await post(record.id, { t: token, nonce: nonce!, decision: "deny", comment: "no" });
    expect(first.status).toBe(200);
    for (const decision of ["approve", "approve_always", "deny"]) {
      const replay = await post(record.id, { t: token, nonce: nonce!, decision });
      expect(replay.status).toBe(409);
      expect(replay.body).toContain("alice");
    }
    const reopened = await open(link);
    expect(reopened.nonce, "no form on a decided link").toBeUndefined();
    expect(await statusOf(record.id)).toBe("denied");
    expect((await store.get(record.id))?.decisions).toHaveLength(1);
  });

  it("a nonce from another approver's page does not carry over to a token (CSRF with half the secrets)", async () => {
    const record = await parkedCall();
    const alice = await linkFor(record, "alice");
    const bob = await linkFor(record, "bob");
    const bobsPage = await open(bob.link);
    // A cross-site form with alice's token and bob's nonce, posted from another origin.
    const res = await post(
      record.id,
      { t: alice.token, nonce: bobsPage.nonce!, decision: "approve" },
      { origin: "https://evil.example", referer: "https://evil.example/form" },
    );
    expect(res.status).toBe(403);
    expect(await statusOf(record.id)).toBe("pending");
  });

  it("the run's owner cannot approve their own run's call with their own link (forbid_self_approval)", async () => {
    const record = await parkedCall("alice");
    // The owner's mail says who decides and carries no link.
    const mail = await smtp.waitForMail(
      (m) => (m.text?.includes(record.id) ?? false) && JSON.stringify(m.to).includes("alice"),
    );
    expect(mail.text).not.toContain("?t=");
    expect(mail.text).toContain("You cannot decide on your own run's calls");
    // A link issued to the owner anyway (one mailed before the upgrade) opens no form and decides nothing.
    const token = (await store.issueToken(record.id, "alice"))!;
    const page = await open(`${publicUrl}/approvals/${record.id}?t=${token}`);
    expect(page.status).toBe(403);
    expect(page.nonce).toBeUndefined();
    const res = await store.decide({ id: record.id, actor: { kind: "token", token }, decision: "approve" });
    expect(res.outcome).toBe("self_approval");
    expect(await statusOf(record.id)).toBe("pending");
    const bob = await linkFor(record, "bob");
    const bobsPage = await open(bob.link);
    expect(
      (await post(record.id, { t: bob.token, nonce: bobsPage.nonce!, decision: "approve" })).status,
    ).toBe(200);
    expect(await statusOf(record.id)).toBe("approved");
  });

  it("no token or nonce reaches a log line, and Redis holds no token in clear", async () => {
    const record = await parkedCall();
    const alice = await linkFor(record, "alice");
    const bob = await linkFor(record, "bob");
    const page = await open(alice.link);
    // Wrong, malformed and oversize requests too: error paths must not log what they were given.
    await post(record.id, { t: bob.token, nonce: page.nonce!, decision: "approve" });
    await post(record.id, { t: alice.token, nonce: page.nonce!, decision: "maybe" });
    await post(record.id, {
      t: alice.token,
      nonce: page.nonce!,
      decision: "approve",
      comment: "x".repeat(20_000),
    });
    await fetch(`${publicUrl}/approvals/${record.id}/decision?t=${alice.token}`, { method: "GET" });
    await fetch(`${publicUrl}/approvals/${record.id}/decision`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ t: alice.token, nonce: `${page.nonce}x`, decision: "approve" }),
    });
    expect((await post(record.id, { t: alice.token, nonce: page.nonce!, decision: "approve" })).status).toBe(
      200,
    );

    const secrets = [alice.token, bob.token, page.nonce!.split(".")[1]!];
    expect(logLines.length, "the flow logged something at trace level").toBeGreaterThan(0);
    for (const line of logLines) for (const secret of secrets) expect(line).not.toContain(secret);

    const keys = await redis.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    const stored: string[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === "string") stored.push((await redis.get(key)) ?? "");
      else if (type === "hash") stored.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === "list") stored.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === "set") stored.push(JSON.stringify(await redis.smembers(key)));
      else if (type === "zset") stored.push(JSON.stringify(await redis.zrange(key, 0, -1)));
      else if (type === "stream") stored.push(JSON.stringify(await redis.xrange(key, "-", "+")));
      stored.push(key);
    }
    for (const text of stored)
      for (const secret of [alice.token, bob.token]) expect(text).not.toContain(secret);
  });
});
