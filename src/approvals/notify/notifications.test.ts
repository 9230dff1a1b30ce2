import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SmtpCapture, startSmtpCapture } from "../../../test/helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { createLogger } from "../../logging/index.js";
import { isRunnerError, ManualClock } from "../../shared/index.js";
import { ApprovalStore } from "../store/index.js";
import { EmailNotifier } from "./email-notifier.js";
import { ApprovalNotifications } from "./notifications.js";
import { type ApprovalNotifier, LogNotifier } from "./notifier.js";
import { WebhookNotifier } from "./webhook-notifier.js";

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const PUBLIC_URL = "https://runner.example.test";
const LINK = /https:\/\/runner\.example\.test\/approvals\/([0-9a-f]{32})\?t=([A-Za-z0-9_-]{43})/;

let redis: Redis;
let smtp: SmtpCapture;
const prefixes: string[] = [];
let n = 0;

beforeAll(async () => {
  redis = testRedisClient();
  smtp = await startSmtpCapture();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
  await smtp.close();
});

function logCapture() {
  const lines: string[] = [];
  const logger = createLogger({
    level: "info",
    format: "json",
    destination: { write: (l: string) => lines.push(l) },
  });
  return { logger, text: () => lines.join("") };
}

function setup(
  notifiers: (logger: ReturnType<typeof logCapture>["logger"]) => ApprovalNotifier[],
  reminderBeforeMs = 0,
) {
  const prefix = uniquePrefix("apprnotify");
  prefixes.push(prefix);
  const clock = new ManualClock(T0);
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock,
    policy: {
      waitTimeoutMs: HOUR,
      reminderBeforeMs,
      approvers: [
        { id: "alice", email: `alice-${prefix}@example.test` },
        { id: "bob", email: null },
      ],
    },
  });
  const log = logCapture();
  const delays: number[] = [];
  const notifications = new ApprovalNotifications({
    store,
    notifiers: notifiers(log.logger),
    publicUrl: PUBLIC_URL,
    logger: log.logger,
    retry: { attempts: 3, baseDelayMs: 100, sleep: async (ms) => void delays.push(ms) },
  });
  return { store, clock, notifications, log, delays, prefix };
}

const email = () =>
  new EmailNotifier({
    host: smtp.host,
    port: smtp.port,
    secure: false,
    user: "",
    from: "runner@example.test",
  });

async function register(store: ApprovalStore, args: unknown = { command: "echo <b>hi</b> & 'bye'" }) {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: "trace",
    idempotencyKey: `k-${n}`,
    tool: "exec",
    args,
    risk: "exec",
    reason: "shell needs a person",
    agent: "nightly",
    channel: "cron",
    scheduleId: "nightly-02",
  });
  return record;
}

describe("email notifications", () => {
  it("mails each approver with an address once: plain text and escaped HTML with a personal link that decides", async () => {
    const { store, notifications } = setup(() => [email()]);
    const record = await register(store);
    const outcome = await notifications.notify(record.id);
    expect(outcome).toEqual({ status: "sent", delivered: ["email:alice"] });
    const mail = await smtp.waitForMail((m) => m.text?.includes(record.id) ?? false);
    expect(mail.subject).toBe("[echo-runner] approve exec (exec) for agent nightly?");
    expect(mail.text).toContain("Schedule:");
    expect(mail.text).toContain(record.argsHash);
    expect(mail.html).toContain("echo &lt;b&gt;hi&lt;/b&gt; &amp; &#39;bye&#39;");
    expect(mail.html).not.toContain("<b>hi</b>");
    const [, id, token] = LINK.exec(mail.text ?? "")!;
    expect(id).toBe(record.id);
    expect((await notifications.notify(record.id)).status).toBe("already_sent");
    expect(smtp.messages.filter((m) => m.text?.includes(record.id))).toHaveLength(1);
    const decided = await store.decide({
      id: record.id,
      actor: { kind: "token", token: token! },
      decision: "approve",
    });
    expect(decided).toMatchObject({ outcome: "decided", record: { status: "approved" } });
  });

  it("mails nobody taken off the approvers list since the request was made", async () => {
    const { store, prefix } = setup(() => [email()]);
    const record = await register(store);
    // Restarted with alice removed: the request still lists her, today's config does not.
    const today = new ApprovalStore({
      redis,
      keyPrefix: prefix,
      clock: store.clock,
      policy: { waitTimeoutMs: HOUR, approvers: [{ id: "bob", email: "bob@example.test" }] },
    });
    const log = logCapture();
    const notifications = new ApprovalNotifications({
      store: today,
      notifiers: [email(), new LogNotifier(log.logger)],
      publicUrl: PUBLIC_URL,
      logger: log.logger,
    });
    const outcome = await notifications.notify(record.id);
    expect(outcome).toEqual({ status: "sent", delivered: ["log:bob"] });
    expect(log.text()).not.toContain("To: alice");
    expect((await today.get(record.id))?.notifiedAt).not.toBeNull();
  });

  it("retries a refusing SMTP server with backoff and keeps the request unsent, then sends it when asked again", async () => {
    const { store, notifications, delays } = setup(() => [email()]);
    const record = await register(store);
    smtp.setRefusing(true);
    try {
      const err = await notifications.notify(record.id).catch((e) => e);
      expect(isRunnerError(err, "APPROVAL_NOTIFY_FAILED")).toBe(true);
      expect(delays).toHaveLength(2);
      expect(delays[1]!).toBeGreaterThan(delays[0]!);
    } finally {
      smtp.setRefusing(false);
    }
    expect((await store.get(record.id))?.notifiedAt).toBeNull();
    expect(await store.unsentIds()).toEqual([record.id]);
    // Email has no back-off across sweeps: the next sweep sends it as soon as SMTP is back.
    expect(await notifications.retryUnsent()).toEqual([{ id: record.id, ok: true }]);
    expect((await store.get(record.id))?.notifiedAt).toBe(T0);
    expect(await store.unsentIds()).toEqual([]);
    await smtp.waitForMail((m) => m.text?.includes(record.id) ?? false);
  });

  it("sends nothing for a request that is no longer pending", async () => {
    const { store, notifications } = setup(() => [email()]);
    const record = await register(store);
    await store.cancelRun(record.runId);
    expect(await notifications.notify(record.id)).toEqual({ status: "not_pending", delivered: [] });
  });

  it("reminds once after the reminder time with a new link that replaces the first", async () => {
    const { store, clock, notifications } = setup(() => [email()], 10 * 60_000);
    const record = await register(store);
    await notifications.notify(record.id);
    const first = await smtp.waitForMail((m) => m.text?.includes(record.id) ?? false);
    expect(await notifications.remindDue()).toEqual([]);
    clock.set(record.deadline - 10 * 60_000);
    expect(await notifications.remindDue()).toEqual([record.id]);
    const reminder = await smtp.waitForMail(
      (m) => (m.subject?.includes("Reminder") && m.text?.includes(record.id)) ?? false,
    );
    expect(await notifications.remindDue()).toEqual([]);
    const oldToken = LINK.exec(first.text ?? "")![2]!;
    const newToken = LINK.exec(reminder.text ?? "")![2]!;
    expect(
      (await store.decide({ id: record.id, actor: { kind: "token", token: oldToken }, decision: "approve" }))
        .outcome,
    ).toBe("token_replaced");
    expect(
      (await store.decide({ id: record.id, actor: { kind: "token", token: newToken }, decision: "approve" }))
        .outcome,
    ).toBe("decided");
  });
});

describe("log notifications (no SMTP host)", () => {
  it("writes every approver's mail and working link to the log", async () => {
    const { store, notifications, log } = setup((logger) => [new LogNotifier(logger)]);
    const record = await register(store);
    expect((await notifications.notify(record.id)).delivered).toEqual(["log:alice", "log:bob"]);
    const links = [...log.text().matchAll(new RegExp(LINK, "g"))];
    expect(links).toHaveLength(2);
    const decided = await store.decide({
      id: record.id,
      actor: { kind: "token", token: links[1]![2]! },
      decision: "deny",
    });
    expect(decided.record?.decisions[0]?.by).toBe("bob");
  });
});

describe("webhook notifications", () => {
  let server: Server;
  let url: string;
  const received: { body: Record<string, unknown>; auth: string | undefined }[] = [];
  let failNext = 0;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        if (failNext > 0) {
          failNext -= 1;
          res.writeHead(503).end();
          return;
        }
        received.push({ body: JSON.parse(body), auth: req.headers.authorization });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("posts one JSON document per request without any link token, retrying a 503", async () => {
    const { store, notifications } = setup(() => [new WebhookNotifier({ url, token: "hook-secret" })]);
    const record = await register(store);
    failNext = 1;
    expect((await notifications.notify(record.id)).delivered).toEqual(["webhook"]);
    expect(received).toHaveLength(1);
    expect(received[0]!.auth).toBe("Bearer hook-secret");
    expect(received[0]!.body).toMatchObject({
      type: "approval.requested",
      id: record.id,
      tool: "exec",
      argsHash: record.argsHash,
    });
    expect(JSON.stringify(received[0]!.body)).not.toMatch(/[?&]t=/);
  });
});
