import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runAgent, type ToolBatchView } from "../../src/agent/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { AuditTrail } from "../../src/journal/index.js";
import { countExecutions, countingWriteTool, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * seed 002's tool execution order: `tools.execution` beside each tool's isConcurrencySafe, and the
 * beforeToolBatch hook that sees a whole batch and may veto it (journalled and audited as a denial).
 */

const redis = testRedisClient();
afterAll(() => redis.disconnect());

/** Two concurrency-safe reads that take a while, recording how many run at once. */
function overlapProbe() {
  let running = 0;
  let most = 0;
  const tool = defineTool({
    name: "read_file",
    description: "a slow concurrency-safe read (test tool)",
    parameters: Type.Object({ path: Type.String() }),
    riskLevel: "read_only",
    isConcurrencySafe: () => true,
    async execute(args) {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 150));
      running--;
      return toolSuccess(`read ${args.path}`);
    },
  });
  return { tool, most: () => most };
}

const TWO_READS = stringify([
  {
    tool_calls: [
      { name: "read_file", arguments: { path: "a" }, id: "r1" },
      { name: "read_file", arguments: { path: "b" }, id: "r2" },
    ],
  },
  { content: "read both" },
]);

describe("tools.execution", () => {
  it.each([
    ["parallel", 2],
    ["sequential", 1],
  ] as const)(
    "%s: a batch of two concurrency-safe calls runs with at most %d at once",
    async (execution, most) => {
      const probe = overlapProbe();
      const { deps } = await testRunDeps({
        redis,
        keyPrefix: uniquePrefix("batch-order"),
        tools: [probe.tool],
        script: TWO_READS,
        configOverrides: { tools: { execution } },
      });
      const payload = testPayload();
      expect(await runAgent({ payload, jobId: payload.runId, owner: "w1", deps })).toMatchObject({
        status: "completed",
      });
      expect(probe.most()).toBe(most);
    },
  );
});

describe("beforeToolBatch", () => {
  it("sees the whole batch, and its veto denies every call, is audited like a gate denial and replays from the journal", async () => {
    const keyPrefix = uniquePrefix("batch-veto");
    const counter = join(await mkdtemp(join(tmpdir(), "echo-batch-")), "c.txt");
    const script = stringify([
      {
        tool_calls: [
          { name: "write_file", arguments: { path: "a", content: "one" }, id: "w1" },
          { name: "write_file", arguments: { path: "b", content: "two" }, id: "w2" },
        ],
      },
      { content: "tried" },
    ]);
    const seen: ToolBatchView[] = [];
    const { deps } = await testRunDeps({ redis, keyPrefix, tools: [countingWriteTool(counter)], script });
    const vetoing = {
      ...deps,
      beforeToolBatch: (batch: ToolBatchView) => {
        seen.push(batch);
        return { veto: true as const, reason: "no writes tonight" };
      },
    };
    const payload = testPayload();
    expect(await runAgent({ payload, jobId: payload.runId, owner: "w1", deps: vetoing })).toMatchObject({
      status: "completed",
      finalAnswer: "tried",
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.calls.map((c) => c.id)).toEqual(["w1", "w2"]);
    expect(seen[0]?.mode).toBe("sequential");
    expect((await countExecutions(counter)).size).toBe(0);
    const trail = (await new AuditTrail({ redis, keyPrefix }).readByTrace(payload.traceId)).map(
      (e) => e.entry,
    );
    const denials = trail.filter((e) => e.kind === "decision");
    expect(denials).toHaveLength(2);
    for (const d of denials) {
      expect(d).toMatchObject({ tool: "write_file", verdict: "deny", step: 0 });
      expect((d as { reason: string }).reason).toContain(
        "beforeToolBatch hook vetoed this batch: no writes tonight",
      );
    }
    expect(trail.some((e) => e.kind === "execution")).toBe(false);
    // A replay with a hook that would allow returns the journalled denials: nothing runs.
    const allowing = { ...deps, beforeToolBatch: () => ({ veto: false as const }) };
    await runAgent({ payload, jobId: payload.runId, owner: "w2", deps: allowing });
    expect((await countExecutions(counter)).size).toBe(0);
  });

  it("a hook that throws vetoes the batch (fail closed), and a hook that lets it pass changes nothing", async () => {
    const counter = join(await mkdtemp(join(tmpdir(), "echo-batch-")), "c.txt");
    const script = stringify([
      { tool_calls: [{ name: "write_file", arguments: { path: "a", content: "one" } }] },
      { content: "tried" },
    ]);
    const throwing = await testRunDeps({
      redis,
      keyPrefix: uniquePrefix("batch-throw"),
      tools: [countingWriteTool(counter)],
      script,
    });
    const p1 = testPayload();
    await runAgent({
      payload: p1,
      jobId: p1.runId,
      owner: "w1",
      deps: {
        ...throwing.deps,
        beforeToolBatch: () => {
          throw new Error("policy service down");
        },
      },
    });
    expect((await countExecutions(counter)).size).toBe(0);
    const passing = await testRunDeps({
      redis,
      keyPrefix: uniquePrefix("batch-pass"),
      tools: [countingWriteTool(counter)],
      script,
    });
    const p2 = testPayload();
    await runAgent({
      payload: p2,
      jobId: p2.runId,
      owner: "w1",
      deps: { ...passing.deps, beforeToolBatch: () => undefined },
    });
    expect((await countExecutions(counter)).size).toBe(1);
  });
});
