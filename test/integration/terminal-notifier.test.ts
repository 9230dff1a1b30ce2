import { Writable } from "node:stream";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApprovalStore,
  approvalLink,
  composeMessage,
  LogNotifier,
  TerminalNotifier,
} from "../../src/approvals/index.js";
import { createLogger } from "../../src/logging/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/** The no-SMTP notifiers: their structured log line names the run; the link stays off it. */
let redis: Redis;
const prefix = uniquePrefix("termnotify");
beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function pendingMessage() {
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock: new ManualClock(1_700_000_000_000),
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: null }] },
  });
  const { record } = await store.register({
    runId: "run-terminal-1",
    jobId: "job-terminal-1",
    traceId: "trace-terminal-1",
    idempotencyKey: "k-1",
    tool: "exec",
    args: { command: "rm -rf build" },
    risk: "exec",
    reason: "deletes files",
    agent: "nightly",
    channel: "cron",
  });
  const token = (await store.issueToken(record.id, "alice"))!;
  const link = approvalLink("http://127.0.0.1:8787", record.id, token);
  const approver = { id: "alice", email: null };
  return {
    token,
    message: {
      kind: "request" as const,
      record,
      approver,
      link,
      content: composeMessage("request", record, link),
    },
  };
}

function jsonLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ level: "info", format: "json", destination }) };
}

describe("no-SMTP approval notifiers", () => {
  it("the terminal notifier logs the run's ids and prints the link only on the terminal", async () => {
    const { token, message } = await pendingMessage();
    const { lines, logger } = jsonLogger();
    let printed = "";
    const print = (text: string) => {
      printed += text;
    };
    await new TerminalNotifier(print, logger).send(message);
    expect(printed).toContain(message.link);
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({
      approvalId: message.record.id,
      traceId: "trace-terminal-1",
      executionId: "run-terminal-1",
      jobId: "job-terminal-1",
    });
    expect(lines[0]).not.toContain(token);
  });

  it("the log notifier carries the run's ids on its line too", async () => {
    const { message } = await pendingMessage();
    const { lines, logger } = jsonLogger();
    await new LogNotifier(logger).send(message);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      traceId: "trace-terminal-1",
      executionId: "run-terminal-1",
      jobId: "job-terminal-1",
    });
  });
});
