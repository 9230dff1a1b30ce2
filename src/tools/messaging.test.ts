import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalHttpServer, startLocalHttpServer } from "../../test/helpers/local-http-server.js";
import { type SmtpCapture, startSmtpCapture } from "../../test/helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { callTool, journalledCall, toolContext } from "../../test/helpers/tool-call.js";
import { Journal } from "../journal/index.js";
import { createMessageTool } from "./message.js";
import type { MessageSender } from "./message-port.js";
import { createMessageSender } from "./message-senders.js";
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
      addressBook: { alice: "alice@example.com" },
      allowedRecipients: ["@partner.example", "bob@example.org"],
    },
    webhook: {
      webhooks: {
        ops: { url: `${hooks.origin}/ops`, token: "hook-token" },
        broken: { url: `${hooks.origin}/broken` },
      },
      notifyWebhook: "ops",
      fetch: globalThis.fetch,
    },
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
    const mail = await smtp.waitForMail((m) => m.subject === "[warning] Report ready");
    expect(mail.to).toMatchObject({ text: "alice@example.com" });
    expect(mail.text?.trim()).toBe("The nightly report is in reports/.");
    expect(mail.messageId).toBe(`<${ctx.idempotencyKey}@echo-runner>`);
  });

  it("posts to the notification webhook with the idempotency key and token", async () => {
    const result = await callTool(createNotifyTool(sender), { title: "t", body: "b", channel: "webhook" });
    expect(result).toMatchObject({ success: true, output: "Sent by webhook to webhook ops." });
    const hit = hooks.hitsOf("/ops").at(-1);
    expect(hit?.headers.authorization).toBe("Bearer hook-token");
    expect(JSON.parse(hit?.body.toString() ?? "{}")).toMatchObject({
      type: "echo-runner.notify",
      to: "alice",
      subject: "t",
    });
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
    const tool = createNotifyTool(createMessageSender({}));
    expect(tool.readinessDetail()).toEqual({
      ready: false,
      detail: "no message channel is configured (smtp.host or webhooks)",
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
    const mail = await smtp.waitForMail((m) => m.subject === "Hi");
    expect(mail.to).toMatchObject({ text: "carol@partner.example" });
  });

  it("refuses a recipient outside the address book and allowed list, in its permission check and at delivery", async () => {
    const tool = createMessageTool(sender);
    const args = { to: "attacker@evil.example", text: "secrets" };
    expect(tool.checkPermissions(args, toolContext(tool, args))).toEqual({
      behavior: "deny",
      reason: "message: attacker@evil.example is not in the address book or the allowed recipients",
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
      await smtp.waitForMail((m) => m.subject === subject);
      expect(smtp.messages.filter((m) => m.subject === subject)).toHaveLength(1);
    },
  );
});
