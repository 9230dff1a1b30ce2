import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bufferIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/run-cli.js";
import {
  type AgentQueue,
  bullPrefix,
  enqueueAgentRun,
  findRunJob,
  type RunWorker,
} from "../../src/queue/index.js";
import type { RunDetail, RunSummary } from "../../src/runs/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { agentQueue, testPayload, testRunDeps, writeScript } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * A job whose stored data is not JSON (it once stayed active with no reason, was picked up
 * again after every stall, and `jobs list` / `jobs show` died with "internal error: SyntaxError").
 * Here a waiting and a delayed job are corrupted in a real Redis beside a good one: the listings
 * read around them, the worker fails each once with PAYLOAD_UNREADABLE and the reason, and the good
 * run completes.
 */

const redis = testRedisClient();
const keyPrefix = uniquePrefix("poison");
let dir: string;
let configPath: string;
let queue: AgentQueue;
let worker: RunWorker | undefined;
const good = testPayload();
const waiting = testPayload();
const delayed = testPayload();

async function cli(args: string[]) {
  const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl() }, dir);
  const code = await runCli([...args, "--config", configPath], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

/** Overwrites a job's `data` field in its hash, as a corrupt or hand-edited record would have it. */
async function corrupt(runId: string, text: string): Promise<void> {
  const key = `${bullPrefix(keyPrefix)}:agent:${runId}`;
  expect(await redis.hexists(key, "data")).toBe(1);
  await redis.hset(key, "data", text);
}

async function listRuns(): Promise<RunSummary[]> {
  const listed = await cli(["jobs", "list", "--json"]);
  expect(listed.stderr).toBe("");
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.stdout) as { runs: RunSummary[] }).runs;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-poison-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(configPath, `redis:\n  key_prefix: "${keyPrefix}"\n`);
  queue = agentQueue(redis, keyPrefix);
  await enqueueAgentRun(queue, waiting);
  await queue.add("run", delayed, { jobId: delayed.runId, attempts: 5, delay: 1500 });
  await corrupt(waiting.runId, '{"v":1,"runId":');
  await corrupt(delayed.runId, "not json at all");
  await enqueueAgentRun(queue, good);
});

afterAll(async () => {
  await worker?.close();
  await queue.close();
  await deleteKeysWithPrefix(redis, bullPrefix(keyPrefix));
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

describe("a job whose stored data is not JSON", () => {
  it("is listed as unreadable beside the intact jobs, and shown with a note", async () => {
    expect(await (await findRunJob(queue, delayed.runId))?.getState()).toBe("delayed");
    const runs = await listRuns();
    const byId = new Map(runs.map((r) => [r.runId, r]));
    expect([...byId.keys()].sort()).toEqual([good.runId, waiting.runId, delayed.runId].sort());
    expect(byId.get(good.runId)).toMatchObject({ agent: "tester", traceId: good.traceId });
    for (const id of [waiting.runId, delayed.runId]) {
      expect(byId.get(id)?.agent).toBeNull();
      expect(byId.get(id)?.detail ?? "").toMatch(/unreadable|delayed/);
    }
    expect(byId.get(waiting.runId)?.detail).toMatch(/^unreadable: the job's stored data is not JSON/);
    const text = await cli(["jobs", "list"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(waiting.runId);

    const shown = await cli(["jobs", "show", waiting.runId, "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    const detail = JSON.parse(shown.stdout) as RunDetail;
    expect(detail.notes.join("\n")).toMatch(
      /unreadable: the job's stored data is not JSON .*"\{\\"v\\":1,\\"runId\\":"/,
    );
  });

  it("fails once with PAYLOAD_UNREADABLE and the reason, waiting or delayed, while the good run completes", async () => {
    const { deps } = await testRunDeps({ redis, keyPrefix, tools: [], script: writeScript(0) });
    worker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 2, deps });
    await expect
      .poll(
        async () =>
          Promise.all(
            [good, waiting, delayed].map(async (p) =>
              (await findRunJob(queue, p.runId))?.finishedOn ? 1 : 0,
            ),
          ),
        {
          timeout: 20_000,
        },
      )
      .toEqual([1, 1, 1]);
    expect(await (await findRunJob(queue, good.runId))?.getState()).toBe("completed");
    for (const payload of [waiting, delayed]) {
      const job = await findRunJob(queue, payload.runId);
      expect(await job?.getState()).toBe("failed");
      expect(job?.failedReason).toMatch(
        /^PAYLOAD_UNREADABLE: unreadable agent job payload: the job's stored data is not JSON \(/,
      );
      expect(job?.attemptsMade, "no retries").toBe(1);
      expect(job?.stalledCounter, "never went through a stall").toBe(0);
    }
    const shown = await cli(["jobs", "show", delayed.runId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/PAYLOAD_UNREADABLE/);
    expect(shown.stdout).toContain("not json at all");
    const runs = await listRuns();
    expect(runs.find((r) => r.runId === delayed.runId)).toMatchObject({ state: "failed", outcome: "failed" });
  });
});
