import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/index.js";
import { AuditTrail, Journal } from "../../src/journal/index.js";
import { parseAgentJobPayload } from "../../src/queue/index.js";
import { ScheduleStore } from "../../src/scheduler/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Data written by the code of commit 5138e93 (test/fixtures/v1/README.md) must still decode: each
 * fixture is restored into Redis under a fresh prefix and read back through today's stores.
 */

interface StoredKey {
  type: "string" | "hash" | "list" | "set" | "zset" | "stream";
  value: unknown;
}
interface Fixture {
  capturedAt: string;
  prefix: string;
  keys: Record<string, StoredKey>;
}

const FIXTURES = resolve(import.meta.dirname, "../fixtures/v1");
/** The manual clock's start when the fixtures were captured (2025-12-01T00:00:00Z). */
const T0 = 1_764_547_200_000;

function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(resolve(FIXTURES, `${name}.json`), "utf8")) as Fixture;
}

let redis: Redis;
const prefixes: string[] = [];

beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, `{${prefix}}`);
  redis.disconnect();
});

/** Writes every key of a fixture under a new prefix (only key names carry the prefix) and returns it. */
async function restore(name: string): Promise<string> {
  const data = fixture(name);
  expect(data.capturedAt).toBe("5138e93");
  const prefix = uniquePrefix(`v1-${name}`).replaceAll(":", "-");
  prefixes.push(prefix);
  for (const [storedKey, { type, value }] of Object.entries(data.keys)) {
    const key = storedKey.replace(data.prefix, prefix);
    if (type === "string") await redis.set(key, value as string);
    else if (type === "hash") await redis.hset(key, value as Record<string, string>);
    else if (type === "list") await redis.rpush(key, ...(value as string[]));
    else if (type === "set") await redis.sadd(key, ...(value as string[]));
    else if (type === "zset") {
      const flat = value as string[];
      for (let i = 0; i + 1 < flat.length; i += 2) await redis.zadd(key, flat[i + 1]!, flat[i]!);
    } else {
      for (const [id, fields] of value as [string, string[]][]) await redis.xadd(key, id, ...fields);
    }
  }
  return prefix;
}

/** The payload stored in a BullMQ job hash's `data` field, decoded as the agent worker decodes it. */
function jobPayload(name: string, jobId: string) {
  const data = fixture(name);
  const entry = Object.entries(data.keys).find(([key]) => key.endsWith(`:agent:${jobId}`));
  const hash = entry?.[1].value as Record<string, string> | undefined;
  return parseAgentJobPayload(JSON.parse(hash?.data ?? "null"));
}

describe("stored v1 payloads still decode", () => {
  it("agent jobs: a cli run and a child with dependsOn", () => {
    expect(jobPayload("agent-job", "run-v1-cli")).toEqual({
      v: 1,
      runId: "run-v1-cli",
      traceId: "trace-v1-cli",
      agent: {
        model: "scripted",
        task: "summarise the inbox",
        allowedTools: ["read_file", "exec"],
        maxSteps: 12,
        workspace: "/srv/ws/run-v1-cli",
        sessionMode: "workspace",
      },
      origin: { kind: "cli" },
      sessionKey: "cli:alice",
      userId: "alice",
      agentId: "main",
      channel: "cli",
      chatId: "",
      unattended: false,
      parentExecutionId: null,
      depth: 0,
      createdAt: T0,
    });
    expect(jobPayload("agent-job", "run-v1-child")).toMatchObject({
      origin: { kind: "parent" },
      parentExecutionId: "run-v1-cli",
      depth: 1,
      unattended: true,
      chatId: "chat-7",
      dependsOn: ["run-v1-step1"],
    });
  });

  it("a scheduled run's job (run now)", () => {
    const payload = jobPayload("schedule", "sched-nightly-02-manual-1764547261260");
    expect(payload).toMatchObject({
      v: 1,
      runId: "sched-nightly-02-manual-1764547261260",
      origin: { kind: "schedule", scheduleId: "nightly-02" },
      userId: "carol",
      unattended: true,
      agent: { model: "scripted", task: "triage the inbox", maxSteps: 5, workspace: "/srv/ws/nightly" },
    });
  });

  it("journal: completed call, completed model step, started call", async () => {
    const prefix = await restore("journal");
    const journal = new Journal({ redis, keyPrefix: prefix, clock: new ManualClock(T0 + 1000) });
    const { records } = await journal.readRun("run-v1-cli");
    expect([...records.keys()].sort()).toEqual(["call-1", "call-2", "model:2"]);
    expect(records.get("call-1")).toEqual({
      key: "call-1",
      v: 1,
      status: "completed",
      owner: "worker-a:1",
      attempt: 1,
      claimedAt: T0,
      leaseUntil: T0 + 60_000,
      completedAt: T0 + 250,
      result: { ok: true, content: "hello\n", exitCode: 0 },
    });
    expect(records.get("model:2")).toMatchObject({
      status: "completed",
      result: { text: "done", toolCalls: [], usage: { input: 120, output: 8 } },
    });
    expect(records.get("call-2")).toEqual({
      key: "call-2",
      v: 1,
      status: "started",
      owner: "worker-a:1",
      attempt: 1,
      claimedAt: T0 + 260,
      leaseUntil: T0 + 60_260,
    });
  });

  it("approvals: a pending request and an approved one", async () => {
    const prefix = await restore("approval");
    const store = new ApprovalStore({
      redis,
      keyPrefix: prefix,
      clock: new ManualClock(T0 + 120_000),
      policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: "alice@example.test" }] },
    });
    const pending = await store.require("04b549ff4f7e97f2911cb8f70cacf718");
    expect(pending).toEqual({
      v: 1,
      id: "04b549ff4f7e97f2911cb8f70cacf718",
      idempotencyKey: "call-3",
      jobId: "run-v1-cron",
      runId: "run-v1-cron",
      traceId: "trace-v1-cron",
      tool: "exec",
      argsCanonical: '{"command":"rm -rf build","cwd":"/srv/ws"}',
      argsHash: "a7c0389605fa007330d2ca0c2dbe3ae913426f0ca196f7d0c8bc7b5d315282e4",
      risk: "exec",
      flags: ["soft:rm-recursive"],
      reason: "recursive delete needs a person",
      agent: "nightly",
      scheduleId: "nightly-02",
      parentRunId: null,
      owner: "carol",
      channel: "cron",
      requestedAt: T0 + 260,
      deadline: T0 + 260 + 3_600_000,
      remindAt: null,
      requiredApprovals: 1,
      forbidSelfApproval: false,
      alwaysAllowed: true,
      approvers: [
        { id: "alice", email: "alice@example.test" },
        { id: "bob", email: null },
      ],
      status: "pending",
      decisions: [],
      finishedAt: null,
      executableUntil: null,
      notifiedAt: null,
      deliveredTo: ["email:alice"],
      remindedAt: null,
      fetches: [
        { at: T0 + 260, method: "GET", ip: "192.0.2.7", userAgent: "Mozilla/5.0", approver: "alice" },
      ],
    });
    const approved = await store.require("838cebf184d1bffe386a99b8502686f0");
    expect(approved).toMatchObject({
      v: 1,
      idempotencyKey: "call-4",
      argsCanonical: '{"command":"make deploy"}',
      scheduleId: null,
      status: "approved",
      decisions: [
        { by: "bob", at: T0 + 60_260, decision: "approve", kind: "always", comment: "fine", via: "cli" },
      ],
      finishedAt: T0 + 60_260,
      executableUntil: T0 + 260 + 3_600_000,
      deliveredTo: [],
      fetches: [],
    });
    expect((await store.list({ status: "pending" })).map((r) => r.id)).toEqual([
      "04b549ff4f7e97f2911cb8f70cacf718",
    ]);
  });

  it("schedule: the stored schedule, its grant and its history", async () => {
    const prefix = await restore("schedule");
    const store = new ScheduleStore({ redis, keyPrefix: prefix });
    expect(await store.get("nightly-02")).toEqual({
      v: 1,
      schedule: {
        v: 1,
        id: "nightly-02",
        cron: "0 2 * * *",
        timezone: "Europe/Berlin",
        agent: { model: "scripted", task: "triage the inbox", maxSteps: 5, workspace: "/srv/ws/nightly" },
        overlap: "queue",
        catchUp: "all",
        catchUpMax: 3,
        jitterSeconds: 30,
        enabled: true,
        owner: "carol",
        source: { kind: "cronjob", runId: "run-v1-cli" },
      },
      specHash: "1e6abac99f90ceeabf71ce8cd29791ed74f18703ab8143584fb5dd530b3b0235",
      rev: 3,
      createdAt: T0 + 60_260,
      updatedAt: T0 + 61_260,
    });
    expect(await store.getGrant("nightly-02")).toEqual({
      v: 1,
      scheduleId: "nightly-02",
      specHash: "1e6abac99f90ceeabf71ce8cd29791ed74f18703ab8143584fb5dd530b3b0235",
      source: "human",
      approver: "alice",
      issuedAt: T0 + 60_260,
      status: "active",
    });
    expect((await store.history("nightly-02")).map((h) => [h.kind, h.actor])).toEqual([
      ["run-now", "bob"],
      ["resumed", "bob"],
      ["paused", "bob"],
      ["granted", "alice"],
      ["created", "alice"],
    ]);
    expect(await store.activeRuns("nightly-02")).toEqual(
      new Map([["sched-nightly-02-manual-1764547261260", T0 + 61_260]]),
    );
  });

  it("audit: a decision and an execution, chain intact", async () => {
    const prefix = await restore("audit");
    const trail = new AuditTrail({ redis, keyPrefix: prefix });
    expect(await trail.verify()).toMatchObject({ ok: true, checked: 2 });
    const records = await trail.readByTrace("trace-v1-cron");
    expect(records.map((r) => r.entry)).toEqual([
      {
        v: 1,
        seq: 1,
        at: T0 + 61_260,
        kind: "decision",
        traceId: "trace-v1-cron",
        executionId: "run-v1-cron",
        runId: "run-v1-cron",
        tool: "exec",
        risk: "exec",
        capabilities: ["process.exec"],
        idempotencyKey: "call-4",
        approvalSource: "human",
        approver: "bob",
        verdict: "allow",
        step: 7,
        reason: "approved by bob",
        detail: { argsHash: "ab".repeat(32) },
      },
      {
        v: 1,
        seq: 2,
        at: T0 + 61_265,
        kind: "execution",
        traceId: "trace-v1-cron",
        executionId: "run-v1-cron",
        runId: "run-v1-cron",
        tool: "exec",
        risk: "exec",
        capabilities: ["process.exec"],
        idempotencyKey: "call-4",
        outcome: "success",
        durationMs: 42,
        isReplay: false,
      },
    ]);
    expect(await trail.head()).toEqual({
      hash: "4b95902d5de0ff067b6cdab09f4c3232657d3d170823edf35d96ca653dc69d69",
      seq: 2,
    });
  });
});
