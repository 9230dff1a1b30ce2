import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalNotifications, ApprovalStore, EmailNotifier } from "../../src/approvals/index.js";
import { AuditTrail } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { escalationAuditTrail } from "../../src/runtime/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Escalation (permissions.approval.escalate_after_minutes / escalate_to) through the sweeper's
 * `escalateDue`: real SMTP (smtp-server in process), real Redis, the real audit trail. A request
 * still pending after the time reaches the second list once, with a link, and the audit trail says so.
 */

const T0 = 1_700_000_000_000;
const AFTER_MS = 30 * 60_000;
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
const prefix = uniquePrefix("escalation");
const clock = new ManualClock(T0);
let smtp: SmtpCapture;
let store: ApprovalStore;
let notifications: ApprovalNotifications;
let trail: AuditTrail;

let n = 0;
async function register() {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `run-${n}`,
    traceId: `run-${n}`,
    idempotencyKey: `key-${n}`,
    tool: "exec",
    args: { command: `make deploy-${n}` },
    risk: "exec",
    reason: "deploys need a person",
    agent: "deployer",
    channel: "cron",
  });
  return record;
}

const to = (address: string) => (mail: { to?: unknown }) => JSON.stringify(mail.to).includes(address);

beforeAll(async () => {
  smtp = await startSmtpCapture();
  store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock,
    policy: {
      waitTimeoutMs: 4 * 3_600_000,
      escalateAfterMs: AFTER_MS,
      escalateTo: ["carol"],
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: "bob@example.test" },
        { id: "carol", email: "carol@example.test" },
      ],
    },
  });
  trail = new AuditTrail({ redis, keyPrefix: prefix, clock });
  notifications = new ApprovalNotifications({
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
    logger,
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    escalation: { afterMs: AFTER_MS, to: ["carol"], audit: escalationAuditTrail(trail) },
  });
});

afterAll(async () => {
  await smtp.close();
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

describe("escalation", () => {
  it("reaches the escalate_to list once when nobody decided in time, and is in the audit trail", async () => {
    clock.set(T0);
    const record = await register();
    await notifications.notify(record.id);
    const before = smtp.messages.length;

    clock.set(T0 + AFTER_MS - 1);
    expect(await notifications.escalateDue()).toEqual([]);

    clock.set(T0 + AFTER_MS);
    expect(await notifications.escalateDue()).toEqual([record.id]);
    const mail = await smtp.waitForMail(
      (m) => to("carol@")(m) && String(m.subject).includes("Escalated"),
      5_000,
    );
    expect(mail.subject).toContain("[echo-runner] Escalated: approve exec");
    expect(mail.text).toContain("Escalated to you");
    expect(mail.text).toMatch(/https:\/\/runner\.example\.test\/approvals\/[0-9a-f]{32}\?t=/);
    // Only the second list: alice and bob got the first mail, not the escalation.
    const escalations = smtp.messages.slice(before).filter((m) => String(m.subject).includes("Escalated"));
    expect(escalations.map((m) => JSON.stringify(m.to))).toEqual([expect.stringContaining("carol@")]);

    // Once per request.
    clock.advance(60_000);
    expect(await notifications.escalateDue()).toEqual([]);
    expect(smtp.messages.filter((m) => String(m.subject).includes("Escalated"))).toHaveLength(1);

    const entries = (await trail.readByTrace(record.traceId)).map((r) => r.entry);
    const escalated = entries.filter((e) => e.kind === "decision" && e.detail?.escalation !== undefined);
    expect(escalated).toHaveLength(1);
    expect(escalated[0]).toMatchObject({
      verdict: "ask",
      step: 11,
      runId: record.runId,
      detail: { escalation: { requestId: record.id, to: ["carol"], afterMinutes: 30 } },
    });
    expect((await trail.verify()).ok).toBe(true);

    // The escalated link decides as carol.
    const link = /\/approvals\/([0-9a-f]{32})\?t=([A-Za-z0-9_-]{43})/.exec(String(mail.text))!;
    const decided = await store.decide({
      id: link[1]!,
      actor: { kind: "token", token: link[2]! },
      decision: "approve",
    });
    expect(decided).toMatchObject({ outcome: "decided", final: true });
    expect(decided.record?.decisions[0]?.by).toBe("carol");
  });

  it("does not escalate a request that was settled in time", async () => {
    clock.set(T0);
    const record = await register();
    await store.decide({
      id: record.id,
      actor: { kind: "operator", id: "bob", via: "cli" },
      decision: "deny",
    });
    clock.set(T0 + AFTER_MS + 1);
    expect(await notifications.escalateDue()).not.toContain(record.id);
    const entries = (await trail.readByTrace(record.traceId)).map((r) => r.entry);
    expect(entries.filter((e) => e.kind === "decision" && e.detail?.escalation !== undefined)).toEqual([]);
  });
});
