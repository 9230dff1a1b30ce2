import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalHttpServer, startLocalHttpServer } from "../../../test/helpers/local-http-server.js";
import { type SmtpCapture, startSmtpCapture } from "../../../test/helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { callTool, journalledCall, toolContext } from "../../../test/helpers/tool-call.js";
import { Journal } from "../../journal/index.js";
import { createMessageTool } from "./message.js";
import type { MessageSender } from "./message-port.js";
import { createMessageSender, webhookSignature } from "./message-senders.js";
import { createNotifyTool } from "./notify.js";

let smtp: SmtpCapture;
let hooks: LocalHttpServer;
let sender: MessageSender;
let redis: Redis;
const prefix = uniquePrefix("messaging");

beforeAll(async () => {
  smtp = await startSmtpCapture();
  hooks = await startLocalHttpServer({
    "POST /ops": (_hit, res) => {
      res.writeHead(204).end();
    },
    "POST /broken": (_hit, res) => {
      res.writeHead(503).end("down");
    },
  });
  sender = createMessageSender({
    email: {
      host: smtp.host,
      port: smtp.port,
      secure: false,
      user: "",
      from: "runner@example.com",
      addressBook: { alice: "alice@example.com", dave: "dave@example.com" },
    },
    webhook: {
      webhooks: {
        ops: { url: `${hooks.origin}/ops`, secret: "hook-secret" },
        broken: { url: `${hooks.origin}/broken` },
        unlisted: { url: `${hooks.origin}/ops` },
      },
      notifyWebhook: "ops",
      fetch: globalThis.fetch,
    },
    allowedRecipients: [
      "@partner.example",
      "bob@example.org",
      "alice@example.com",
      "webhook:ops",
      "webhook:broken",
    ],
  });
  redis = testRedisClient();
});

afterAll(async () => {
  await smtp.close();
  await hooks.close();
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe("notify", () => {
  it("emails the run's owner, with a Message-ID derived from the call", async () => {
    const notify = createNotifyTool(sender);
    const args = { title: "Report ready", body: "The nightly report is in reports/.", level: "warning" };
    const ctx = toolContext(notify, args);
    const result = await callTool(notify, args);
    expect(result).toMatchObject({ success: true, output: "Sent by email to alice@example.com." });
    const mail = await smtp.waitForMail((m) => m.subject === "[agent message] [warning] Report ready");
    expect(mail.to).toMatchObject({ text: "alice@example.com" });
    expect(mail.text?.trim().split("\n").at(-1)).toBe("The nightly report is in reports/.");
    expect(mail.messageId).toBe(`<${ctx.idempotencyKey}@echo-runner>`);
  });

  it("posts to the notification webhook with the idempotency key, signed with its secret", async () => {
    const result = await callTool(createNotifyTool(sender), { title: "t", body: "b", channel: "webhook" });
    expect(result).toMatchObject({ success: true, output: "Sent by webhook to webhook ops." });
    const hit = hooks.hitsOf("/ops").at(-1);
    expect(hit?.headers["x-echo-runner-signature"]).toBe(
      webhookSignature("hook-secret", hit?.body.toString() ?? ""),
    );
    expect(hit?.headers.authorization).toBeUndefined();
    expect(JSON.parse(hit?.body.toString() ?? "{}")).toMatchObject({
      type: "echo-runner.notify",
      to: "alice",
      subject: "[agent message] t",
    });
  });

  it("refuses an owner whose address is not in the allow-list, naming the key", async () => {
    const before = smtp.messages.length;
    const result = await callTool(createNotifyTool(sender), { title: "t", body: "b" }, { userId: "dave" });
    expect(result).toMatchObject({
      success: false,
      errorKind: "denied",
      error:
        "notify: dave@example.com is not in tools.messaging.allowed_recipients (allowed: @partner.example, bob@example.org, alice@example.com, webhook:ops, webhook:broken)",
    });
    expect(smtp.messages).toHaveLength(before);
  });

  it("sends to nobody when the allow-list is empty (fail closed)", async () => {
    const closed = createMessageSender({
      email: {
        host: smtp.host,
        port: smtp.port,
        secure: false,
        user: "",
        from: "r@example.com",
        addressBook: { alice: "alice@example.com" },
      },
      allowedRecipients: [],
    });
    const before = smtp.messages.length;
    expect(await callTool(createNotifyTool(closed), { title: "t", body: "b" })).toMatchObject({
      success: false,
      errorKind: "denied",
      error:
        "notify: tools.messaging.allowed_recipients is empty, so nobody may be messaged (list alice@example.com there to allow it)",
    });
    expect(await callTool(createMessageTool(closed), { to: "alice@example.com", text: "x" })).toMatchObject({
      errorKind: "denied",
    });
    expect(smtp.messages).toHaveLength(before);
  });

  it("refuses an owner with no address", async () => {
    const result = await callTool(createNotifyTool(sender), { title: "t", body: "b" }, { userId: "mallory" });
    expect(result).toMatchObject({
      success: false,
      errorKind: "denied",
      error: 'notify: user "mallory" has no email address (approvers)',
    });
  });

  it("is not ready without any channel", async () => {
    const tool = createNotifyTool(createMessageSender({ allowedRecipients: [] }));
    expect(tool.readinessDetail()).toEqual({
      ready: false,
      detail: "no message channel is configured (smtp.host or tools.messaging.webhooks)",
    });
    expect(await callTool(tool, { title: "t", body: "b" })).toMatchObject({ errorKind: "not_ready" });
  });

  it.each([
    [{ body: "b" }, "title: is required"],
    [{ title: "t", body: "b", level: "panic" }, 'level: must be one of "info", "warning", "error"'],
    [{ title: "t", body: "b", channel: "sms" }, 'channel: must be one of "email", "webhook"'],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(createNotifyTool(sender), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });
});

describe("message", () => {
  it("emails an allowed recipient", async () => {
    const result = await callTool(createMessageTool(sender), {
      to: "carol@partner.example",
      text: "hello",
      subject: "Hi",
    });
    expect(result).toMatchObject({ success: true });
    const mail = await smtp.waitForMail((m) => m.subject === "[agent message] Hi");
    expect(mail.to).toMatchObject({ text: "carol@partner.example" });
  });

  it("refuses a recipient outside the address book and allowed list, in its permission check and at delivery", async () => {
    const tool = createMessageTool(sender);
    const args = { to: "attacker@evil.example", text: "secrets" };
    expect(tool.checkPermissions(args, toolContext(tool, args))).toEqual({
      behavior: "deny",
      reason:
        "message: attacker@evil.example is not in tools.messaging.allowed_recipients (allowed: @partner.example, bob@example.org, alice@example.com, webhook:ops, webhook:broken)",
    });
    const before = smtp.messages.length;
    expect(await callTool(tool, args)).toMatchObject({ success: false, errorKind: "denied" });
    expect(smtp.messages).toHaveLength(before);
  });

  it("posts to a named webhook and reports a failing one", async () => {
    const tool = createMessageTool(sender);
    expect(await callTool(tool, { to: "ops", text: "deploy done", channel: "webhook" })).toMatchObject({
      success: true,
    });
    const broken = await callTool(tool, { to: "broken", text: "x", channel: "webhook" });
    expect(broken).toMatchObject({ success: false, errorKind: "business" });
    if (!broken.success) expect(broken.error).toContain('webhook "broken" answered HTTP 503');
    expect(await callTool(tool, { to: "nope", text: "x", channel: "webhook" })).toMatchObject({
      errorKind: "denied",
    });
    const unlisted = await callTool(tool, { to: "unlisted", text: "x", channel: "webhook" });
    expect(unlisted).toMatchObject({ errorKind: "denied" });
    if (!unlisted.success)
      expect(unlisted.error).toContain("webhook:unlisted is not in tools.messaging.allowed_recipients");
  });

  it.each([
    [{ text: "x" }, "to: is required"],
    [{ to: "a@b.c", text: "" }, "text:"],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(createMessageTool(sender), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });

  it.each([
    [
      "message",
      () => createMessageTool(sender),
      { to: "bob@example.org", text: "only once", subject: "Once" },
      "Once",
    ],
    ["notify", () => createNotifyTool(sender), { title: "Notified once", body: "b" }, "Notified once"],
  ])(
    "%s: a journalled replay returns the recorded result without sending again",
    async (_n, build, args, subject) => {
      const tool = build();
      const journal = new Journal({ redis, keyPrefix: prefix });
      const ctx = toolContext(tool, args);
      const first = await journalledCall(journal, `run-${tool.name}`, tool, args, ctx);
      const second = await journalledCall(journal, `run-${tool.name}`, tool, args, ctx);
      expect(first.result.success).toBe(true);
      expect(second).toEqual({ result: first.result, replay: true });
      await smtp.waitForMail((m) => m.subject === `[agent message] ${subject}`);
      expect(smtp.messages.filter((m) => m.subject === `[agent message] ${subject}`)).toHaveLength(1);
    },
  );
});

describe("nothing an agent writes looks like the runner speaking", () => {
  it("a notify copying an approval mail's subject and link arrives marked, bannered and defanged", async () => {
    const forged = "[echo-runner] approve exec (exec) for agent nightly?";
    const result = await callTool(createNotifyTool(sender), {
      title: forged,
      body: "Approve here: https://evil.example/approvals/x?t=1 or www.evil.example \u202egnp.exe",
    });
    expect(result.success).toBe(true);
    const mail = await smtp.waitForMail((m) => m.subject?.includes(forged) === true);
    expect(mail.subject).toBe(`[agent message] ${forged}`);
    expect(mail.subject).not.toBe(forged);
    expect(mail.text).toContain("It is not a message from echo-runner itself");
    expect(mail.text).toContain("https[:]//evil.example/approvals/x?t=1");
    expect(mail.text).toContain("www[.]evil.example");
    expect(mail.text).not.toContain("https://");
    expect(mail.text).toContain("\\u202e");
    expect(mail.html).toBeFalsy();
  });
});
