import { afterAll, describe, expect, it } from "vitest";
import { startRedisCluster } from "../../../test/helpers/redis-cluster.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { callTool } from "../../../test/helpers/tool-call.js";
import { RedisSessionArchive } from "./session-archive.js";
import { createSessionSearchTool } from "./session-search.js";

const redis = testRedisClient();
const prefixes: string[] = [];
afterAll(async () => {
  for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
  redis.disconnect();
});

function archive(options: { maxRunsPerUser?: number; maxEntries?: number; maxEntryChars?: number } = {}) {
  const keyPrefix = uniquePrefix("sessions");
  prefixes.push(keyPrefix);
  return new RedisSessionArchive({ redis, keyPrefix, retentionMs: 3600_000, ...options });
}

const NOW = Date.UTC(2026, 0, 10);
const run = (runId: string, userId: string, startedAt: number, text: string) => ({
  summary: { runId, userId, agentId: "triage", startedAt },
  entries: [
    { role: "user" as const, text: "Triage the inbox" },
    { role: "assistant" as const, text },
  ],
});

describe("RedisSessionArchive with session_search", () => {
  it("finds a past run's text for its user and never another user's", async () => {
    const a = archive();
    await a.record(run("r-alice", "alice", NOW - 1000, "Three invoices from Acme are overdue."), NOW);
    await a.record(run("r-bob", "bob", NOW - 500, "Bob's private payroll numbers."), NOW);
    const tool = createSessionSearchTool(a);
    const found = await callTool(tool, { query: "acme invoices" });
    expect(found).toMatchObject({ success: true });
    expect(found.output).toContain("run r-alice (agent triage, 2026-01-09T23:59:59.000Z) assistant:");
    expect(found.output).toContain("Three invoices from Acme are overdue.");
    expect((await callTool(tool, { query: "payroll" })).output).toBe(
      'No past run of yours mentions "payroll" (1 runs searched).',
    );
    expect((await callTool(tool, { query: "payroll" }, { userId: "bob" })).output).toContain("run r-bob");
    // Reading through another user's keys finds nothing, even with the right run id.
    expect(await a.transcript("alice", "r-bob")).toEqual([]);
    expect(await a.runsVisibleTo("mallory", 10)).toEqual([]);
  });

  it("archiving the same run again (a replayed finish) keeps one copy", async () => {
    const a = archive();
    await a.record(run("r1", "alice", NOW - 10, "first answer"), NOW);
    await a.record(run("r1", "alice", NOW - 10, "first answer"), NOW);
    expect((await a.runsVisibleTo("alice", 10)).map((r) => r.runId)).toEqual(["r1"]);
    expect(await a.transcript("alice", "r1")).toHaveLength(2);
  });

  it("is bounded: runs per user (oldest dropped), entries per run and characters per entry", async () => {
    const a = archive({ maxRunsPerUser: 2, maxEntries: 3, maxEntryChars: 10 });
    for (let i = 1; i <= 3; i++) await a.record(run(`r${i}`, "alice", NOW - 100 + i, `answer ${i}`), NOW);
    expect((await a.runsVisibleTo("alice", 10)).map((r) => r.runId)).toEqual(["r3", "r2"]);
    expect(await a.transcript("alice", "r1")).toEqual([]);
    await a.record(
      {
        summary: { runId: "long", userId: "alice", agentId: "x", startedAt: NOW },
        entries: ["one", "two", "three", "four", "a much longer final answer"].map((text) => ({
          role: "assistant" as const,
          text,
        })),
      },
      NOW,
    );
    expect((await a.transcript("alice", "long")).map((e) => e.text)).toEqual([
      "one",
      "two",
      "a much lon …[cut]",
    ]);
  });

  it("archives and bounds on a Redis Cluster too (the run's value and the user's set share a slot)", async () => {
    const cluster = await startRedisCluster(3);
    const client = cluster.client();
    try {
      const a = new RedisSessionArchive({
        redis: client,
        keyPrefix: uniquePrefix("sessions"),
        retentionMs: 3600_000,
        maxRunsPerUser: 2,
      });
      for (let i = 1; i <= 3; i++) await a.record(run(`r${i}`, "alice", NOW - 100 + i, `answer ${i}`), NOW);
      expect((await a.runsVisibleTo("alice", 10)).map((r) => r.runId)).toEqual(["r3", "r2"]);
      expect(await a.transcript("alice", "r1")).toEqual([]);
      expect((await a.transcript("alice", "r3")).map((e) => e.text)).toEqual([
        "Triage the inbox",
        "answer 3",
      ]);
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  }, 60_000);

  it("drops runs older than the retention", async () => {
    const a = archive();
    await a.record(run("old", "alice", NOW - 2 * 3600_000, "ancient"), NOW - 2 * 3600_000 + 1);
    await a.record(run("new", "alice", NOW, "fresh"), NOW);
    expect((await a.runsVisibleTo("alice", 10)).map((r) => r.runId)).toEqual(["new"]);
  });

  it.each([
    [{ query: "" }, "query:"],
    [{ query: "x", agent_id: 5 }, "agent_id:"],
    [{ query: "x", extra: true }, "extra"],
  ])("rejects %j naming the field", async (args, field) => {
    const result = await callTool(createSessionSearchTool(archive()), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(field);
  });
});
