import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalHttpServer, startLocalHttpServer } from "../../test/helpers/local-http-server.js";
import { type SmtpCapture, startSmtpCapture } from "../../test/helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { ApprovalStore, ChatWebhookNotifier, EmailNotifier } from "../approvals/index.js";
import { createLogger } from "../logging/index.js";
import { ManualClock } from "../shared/index.js";
import type { Alert } from "./alert.js";
import { AlertOutbox } from "./alert-outbox.js";
import { AlertSender } from "./alert-sender.js";

const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
const prefixes: string[] = [];
let smtp: SmtpCapture;
let hooks: LocalHttpServer;
let hookStatus = 200;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  hooks = await startLocalHttpServer({
    "POST /hook": (_hit, res: ServerResponse) => void res.writeHead(hookStatus).end(),
  });
});

afterAll(async () => {
  for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
  redis.disconnect();
  await smtp.close();
  await hooks.close();
});

function alert(runId: string, patch: Partial<Alert> = {}): Alert {
  return {
    v: 1,
    id: `run_failed:${runId}`,
    kind: "run_failed",
    at: 1_000,
    runId,
    agent: "nightly",
    scheduleId: "nightly",
    owner: "ann",
    code: "MODEL_AUTH_FAILED",
    detail: "the model server refused the key",
    ...patch,
  };
}

/** An outbox, a lease store and `n` senders over one fresh prefix (the same Redis keys). */
function setup(n = 1, leaseMs = 30_000) {
  const keyPrefix = uniquePrefix("alert-sender");
  prefixes.push(keyPrefix);
  const clock = new ManualClock(1_000_000);
  const outbox = new AlertOutbox({ redis, keyPrefix, gatherMs: 0, windowMs: 60_000, clock });
  const leases = new ApprovalStore({
    redis,
    keyPrefix,
    policy: { waitTimeoutMs: 60_000, approvers: [{ id: "ann", email: "ann@example.test" }] },
  });
  const email = new EmailNotifier({
    host: smtp.host,
    port: smtp.port,
    secure: false,
    user: "",
    from: "r@x.test",
  });
  const chat = new ChatWebhookNotifier({
    name: "alert-json:HOOK",
    format: "json",
    url: `${hooks.origin}/hook`,
    personalFor: null,
    adminUrl: null,
  });
  const senders = Array.from(
    { length: n },
    () =>
      new AlertSender({
        outbox,
        leases,
        email,
        chat: [chat],
        approvers: [],
        owners: { enabled: true, entries: [{ id: "ann", email: "ann@example.test" }] },
        publicUrl: "https://runner.example.test",
        logger,
        retryMs: 1_000,
        leaseMs,
      }),
  );
  return { outbox, leases, clock, senders };
}

const mailsAbout = (runId: string) => smtp.messages.filter((m) => m.text?.includes(runId));
const postsAbout = (runId: string) =>
  hooks.hitsOf("/hook").filter((h) => h.body.toString("utf8").includes(runId));

describe("AlertSender", () => {
  it("stores a second report of the same alert as nothing new", async () => {
    const { outbox } = setup();
    expect(await outbox.add(alert("run-dup"))).toBe(true);
    expect(await outbox.add(alert("run-dup"))).toBe(false);
  });

  it("re-sends only the target that failed: the owner's mail once, the webhook when it answers again", async () => {
    const { outbox, clock, senders } = setup();
    const runId = `run-retry-${Date.now()}`;
    await outbox.add(alert(runId));
    hookStatus = 500;
    try {
      expect(await senders[0]!.sweep()).toEqual({ sent: 0, failed: 1 });
    } finally {
      hookStatus = 200;
    }
    expect(mailsAbout(runId)).toHaveLength(1);
    // Not due again before its retry time.
    expect(await senders[0]!.sweep()).toEqual({ sent: 0, failed: 0 });
    clock.advance(1_000);
    expect(await senders[0]!.sweep()).toEqual({ sent: 1, failed: 0 });
    expect(mailsAbout(runId)).toHaveLength(1);
    expect(postsAbout(runId)).toHaveLength(2);
  });

  it("sends each group once when two senders sweep at the same moment", async () => {
    const { outbox, senders } = setup(2);
    const runId = `run-race-${Date.now()}`;
    await outbox.add(alert(runId));
    const results = await Promise.all(senders.map((s) => s.sweep()));
    expect(results.reduce((n, r) => n + r.sent, 0)).toBe(1);
    expect(mailsAbout(runId)).toHaveLength(1);
    expect(postsAbout(runId)).toHaveLength(1);
  });

  it("sends the batch a crashed sender took, once its lease lapsed", async () => {
    const leaseMs = 300;
    const { outbox, leases, senders } = setup(1, leaseMs);
    const runId = `run-crash-${Date.now()}`;
    await outbox.add(alert(runId));
    // The crashed sender: claimed the group's lease, took its batch, and died without a word.
    const [gid] = await outbox.dueGroups();
    expect(await leases.claimSendLease(`alert-${gid}`, leaseMs)).not.toBeNull();
    expect((await outbox.take(gid!))?.alerts.map((a) => a.runId)).toEqual([runId]);
    expect(await senders[0]!.sweep()).toEqual({ sent: 0, failed: 0 });
    expect(mailsAbout(runId)).toHaveLength(0);
    await new Promise((r) => setTimeout(r, leaseMs + 100));
    expect(await senders[0]!.sweep()).toEqual({ sent: 1, failed: 0 });
    expect(mailsAbout(runId)).toHaveLength(1);
    expect(postsAbout(runId)).toHaveLength(1);
  });

  it("holds alerts arriving after a message for the window, then sends them as one digest", async () => {
    const { outbox, clock, senders } = setup();
    const first = `run-win-a-${Date.now()}`;
    await outbox.add(alert(first));
    expect((await senders[0]!.sweep()).sent).toBe(1);
    const later = [`run-win-b-${Date.now()}`, `run-win-c-${Date.now()}`];
    for (const id of later) await outbox.add(alert(id));
    expect((await senders[0]!.sweep()).sent).toBe(0);
    clock.advance(60_000);
    expect((await senders[0]!.sweep()).sent).toBe(1);
    const digest = smtp.messages.filter((m) => later.every((id) => m.text?.includes(id)));
    expect(digest).toHaveLength(1);
    expect(digest[0]?.subject).toContain("2 alerts from schedule nightly");
    // Nothing left: the group leaves the due set.
    clock.advance(60_000);
    expect(await senders[0]!.sweep()).toEqual({ sent: 0, failed: 0 });
    expect(await outbox.dueGroups()).toEqual([]);
  });
});
