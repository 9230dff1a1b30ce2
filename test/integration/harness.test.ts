import { Redis } from "ioredis";
import nodemailer from "nodemailer";
import { afterAll, describe, expect, it } from "vitest";
import { startRedisServer } from "../helpers/redis-server.js";
import { startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

describe("the Redis test harness", () => {
  it("keeps a key written before SIGKILL after a restart from the AOF", async () => {
    const server = await startRedisServer();
    try {
      const client = new Redis(server.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
      await client.set("survivor", "written-before-kill");
      client.disconnect();
      const pidBefore = server.pid;
      await server.kill();
      await expect(
        new Redis(server.url, { lazyConnect: true, retryStrategy: () => null }).connect(),
      ).rejects.toThrow();
      await server.restart();
      expect(server.pid).not.toBe(pidBefore);
      const after = new Redis(server.url, { maxRetriesPerRequest: 0 });
      expect(await after.get("survivor")).toBe("written-before-kill");
      expect(await after.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
      after.disconnect();
    } finally {
      await server.stop();
    }
  });

  it("gives every caller its own key prefix on the shared test Redis", async () => {
    const a = uniquePrefix("a");
    const b = uniquePrefix("a");
    expect(a).not.toBe(b);
    const client = testRedisClient();
    await client.set(`${a}:k`, "1");
    await deleteKeysWithPrefix(client, b);
    expect(await client.get(`${a}:k`)).toBe("1");
    await deleteKeysWithPrefix(client, a);
    expect(await client.get(`${a}:k`)).toBeNull();
    client.disconnect();
  });
});

describe("the SMTP capture server", () => {
  const smtpPromise = startSmtpCapture();
  afterAll(async () => (await smtpPromise).close());

  it("receives and parses a message sent by nodemailer", async () => {
    const smtp = await smtpPromise;
    const transport = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: false,
      ignoreTLS: true,
    });
    const waiting = smtp.waitForMail((m) => m.subject === "hello");
    await transport.sendMail({
      from: "a@example.test",
      to: "b@example.test",
      subject: "hello",
      text: "body <b>",
    });
    const mail = await waiting;
    expect(mail.text?.trim()).toBe("body <b>");
    transport.close();
  });

  it("refuses mail while told to, so SMTP outages can be tested", async () => {
    const smtp = await smtpPromise;
    smtp.setRefusing(true);
    const transport = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: false,
      ignoreTLS: true,
    });
    await expect(
      transport.sendMail({ from: "a@example.test", to: "b@example.test", subject: "refused", text: "x" }),
    ).rejects.toThrow(/451/);
    smtp.setRefusing(false);
    transport.close();
  });
});
