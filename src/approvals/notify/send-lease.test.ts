import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SmtpCapture, startSmtpCapture } from "../../../test/helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { createLogger } from "../../logging/index.js";
import { isRunnerError, ManualClock } from "../../shared/index.js";
import { ApprovalStore } from "../store/index.js";
import { EmailNotifier } from "./email-notifier.js";
import { ApprovalNotifications } from "./notifications.js";
import { SendLease } from "./send-lease.js";

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const LINK = /https:\/\/runner\.example\.test\/approvals\/([0-9a-f]{32})\?t=([A-Za-z0-9_-]{43})/;

const clients: Redis[] = [];
let smtp: SmtpCapture;
const prefixes: string[] = [];
let n = 0;

beforeAll(async () => {
  smtp = await startSmtpCapture();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(clients[0]!, prefix);
  for (const client of clients) client.disconnect();
  await smtp.close();
});

/** One "process": its own Redis connection, store, SMTP transport and notifications. */
function sender(prefix: string, sendLeaseMs?: number) {
  const redis = testRedisClient();
  clients.push(redis);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock: new ManualClock(T0),
    policy: {
      waitTimeoutMs: HOUR,
      reminderBeforeMs: 0,
      approvers: [{ id: "alice", email: `alice-${prefix}@example.test` }],
    },
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
    ],
    publicUrl: "https://runner.example.test",
    logger: createLogger({ level: "silent", format: "json" }),
    retry: { attempts: 3, baseDelayMs: 1, sleep: async () => undefined },
    sendLeaseMs,
  });
  return { store, notifications };
}

async function register(store: ApprovalStore): Promise<string> {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: "trace",
    idempotencyKey: `k-${n}`,
    tool: "exec",
    args: { command: `echo ${n}` },
    risk: "exec",
    reason: "shell needs a person",
    agent: "nightly",
    channel: "cron",
    scheduleId: null,
  });
  return record.id;
}

const mailsOf = (id: string) => smtp.messages.filter((m) => m.text?.includes(id) ?? false);

async function decideWithMailedLink(store: ApprovalStore, id: string) {
  const token = LINK.exec(mailsOf(id)[0]?.text ?? "")?.[2];
  expect(token).toBeDefined();
  return store.decide({ id, actor: { kind: "token", token: token! }, decision: "approve" });
}

describe("one sender per unsent request", () => {
  it("two processes' sweeps and an inline send racing over 5 unsent requests send one mail each, and its link decides", async () => {
    const prefix = uniquePrefix("apprlease");
    prefixes.push(prefix);
    const a = sender(prefix);
    const b = sender(prefix);
    const ids: string[] = [];
    smtp.setRefusing(true);
    try {
      for (let i = 0; i < 5; i += 1) {
        const id = await register(a.store);
        ids.push(id);
        const err = await a.notifications.notify(id).catch((e) => e);
        expect(isRunnerError(err, "APPROVAL_NOTIFY_FAILED")).toBe(true);
      }
    } finally {
      smtp.setRefusing(false);
    }
    expect(new Set(await a.store.unsentIds())).toEqual(new Set(ids));
    for (const id of ids) expect(mailsOf(id)).toHaveLength(0);

    // SMTP is back: both processes' sweeps run at once, and the run loop re-notifies the first.
    const [sweepA, sweepB, inline] = await Promise.all([
      a.notifications.retryUnsent(),
      b.notifications.retryUnsent(),
      b.notifications.notify(ids[0]!),
    ]);
    expect([...sweepA, ...sweepB].every((o) => o.ok)).toBe(true);
    expect(["sent", "already_sent", "in_progress"]).toContain(inline.status);
    for (const o of [...sweepA, ...sweepB]) {
      // Whichever leg found a request held by another left it alone; the holder sent it.
      if (o.inProgress) expect(o).toEqual({ id: o.id, ok: true, inProgress: true });
    }
    expect(await a.store.unsentIds()).toEqual([]);
    for (const id of ids) {
      expect(mailsOf(id)).toHaveLength(1);
      expect((await a.store.get(id))?.status).toBe("pending");
      const decided = await decideWithMailedLink(b.store, id);
      expect(decided).toMatchObject({ outcome: "decided", record: { status: "approved" } });
    }
  });

  it("a crashed sender's lease expires and the next sweep sends the mail once", async () => {
    const prefix = uniquePrefix("apprlease");
    prefixes.push(prefix);
    const live = sender(prefix);
    const crashed = sender(prefix);
    const id = await register(live.store);
    // The crashed process claimed the request and died before mailing: nobody releases the lease.
    expect(await crashed.store.claimSendLease(id, 400)).not.toBeNull();
    expect(await live.notifications.notify(id)).toEqual({ status: "in_progress", delivered: [] });
    expect(await live.notifications.retryUnsent()).toEqual([{ id, ok: true, inProgress: true }]);
    expect(mailsOf(id)).toHaveLength(0);
    expect(await live.store.unsentIds()).toEqual([id]);
    expect((await live.store.get(id))?.status).toBe("pending");

    const deadline = Date.now() + 10_000;
    let outcomes = await live.notifications.retryUnsent();
    while (outcomes[0]?.inProgress && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      outcomes = await live.notifications.retryUnsent();
    }
    expect(outcomes).toEqual([{ id, ok: true }]);
    expect(mailsOf(id)).toHaveLength(1);
    expect(await live.store.unsentIds()).toEqual([]);
    const decided = await decideWithMailedLink(live.store, id);
    expect(decided).toMatchObject({ outcome: "decided", record: { status: "approved" } });
  });

  it("a holder whose lease was taken over notices at its next renewal and stops", async () => {
    const prefix = uniquePrefix("apprlease");
    prefixes.push(prefix);
    const { store } = sender(prefix);
    const id = await register(store);
    const lease = await SendLease.claim(store, id, 300);
    expect(lease?.held).toBe(true);
    expect(await SendLease.claim(store, id, 300)).toBeNull();
    // As if this process stalled past the lease and another sender claimed the request.
    await clients[clients.length - 1]!.set(store.keys.sendLease(id), "someone-else", "PX", 60_000);
    const deadline = Date.now() + 5_000;
    while (lease!.held && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lease!.held).toBe(false);
    await lease!.release();
    // Its release leaves the new holder's lease alone.
    expect(await clients[clients.length - 1]!.get(store.keys.sendLease(id))).toBe("someone-else");
  });
});
