import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bufferIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/run-cli.js";
import {
  type AgentQueue,
  enqueueAgentRun,
  findRunJob,
  openAgentQueueEvents,
  type RunWorker,
} from "../../src/queue/index.js";
import type { RunDetail, RunSummary } from "../../src/runs/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import {
  agentQueue,
  countingWriteTool,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import { type ParkingWorker, startParkingWorker } from "../helpers/parking-worker.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
const keyPrefix = uniquePrefix("cli-jobs");
let dir: string;
let configPath: string;
let queue: AgentQueue;
let parking: ParkingWorker;
const done = testPayload({}, { task: "write two files" });
const parked = testPayload();

/** Polls `check` until it holds, failing with `what` after 15 s (expect.poll works only inside a test). */
async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function cli(args: string[]) {
  const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl() }, dir);
  const code = await runCli([...args, "--config", configPath], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-cli-jobs-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(configPath, `redis:\n  key_prefix: "${keyPrefix}"\n`);
  queue = agentQueue(redis, keyPrefix);

  // A finished run, through the real worker.
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [countingWriteTool(join(dir, "counter.txt"))],
    script: writeScript(2, "two files written"),
  });
  const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
  const worker: RunWorker = startAgentWorker({ connection: redis, keyPrefix, concurrency: 1, deps });
  try {
    await enqueueAgentRun(queue, done);
    await (await findRunJob(queue, done.runId))!.waitUntilFinished(events, 30_000);
  } finally {
    await worker.close();
    await events.close();
  }

  // A run parked on an exec approval, through the worker as `echo-runner worker` wires it.
  parking = await startParkingWorker({
    redis,
    redisUrl: testRedisUrl(),
    keyPrefix,
    publicUrl: "http://127.0.0.1:9",
    concurrency: 1,
  });
  await enqueueAgentRun(queue, parked);
  await waitFor(async () => {
    const pending = await parking.store.list({ status: "pending" });
    const state = await (await findRunJob(queue, parked.runId))?.getState();
    return pending.some((r) => r.runId === parked.runId) && state === "delayed";
  }, "the run to park on its exec approval");
}, 60_000);

afterAll(async () => {
  await parking?.stop();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

describe("echo-runner jobs list", () => {
  it("lists the finished and the parked run, newest first, with the approval the parked one waits for", async () => {
    const [approval] = await parking.store.list({ status: "pending" });
    const { code, stdout } = await cli(["jobs", "list"]);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(parked.runId);
    expect(lines[0]).toContain("parked");
    expect(lines[0]).toContain(`waits for approval ${approval!.id} (exec`);
    expect(lines[1]).toContain(done.runId);
    expect(lines[1]).toContain("completed");
    expect(lines[1]).toContain("two files written");
  });

  it("filters by state and prints JSON with --json", async () => {
    const parkedRows = JSON.parse((await cli(["jobs", "list", "--state", "parked", "--json"])).stdout)
      .runs as RunSummary[];
    expect(parkedRows.map((r) => [r.runId, r.state, r.outcome])).toEqual([
      [parked.runId, "delayed", "parked"],
    ]);
    expect(parkedRows[0]!.parkedApprovals).toEqual([expect.objectContaining({ tool: "exec" })]);
    const finished = JSON.parse((await cli(["jobs", "list", "--state", "completed", "--json"])).stdout)
      .runs as RunSummary[];
    expect(finished.map((r) => [r.runId, r.outcome, r.detail])).toEqual([
      [done.runId, "completed", "two files written"],
    ]);
    const limited = JSON.parse((await cli(["jobs", "list", "--limit", "1", "--json"])).stdout)
      .runs as RunSummary[];
    expect(limited.map((r) => r.runId)).toEqual([parked.runId]);
    expect((await cli(["jobs", "list", "--state", "waiting"])).stdout).toBe("no runs in state waiting\n");
  });

  it("refuses an unknown state and a bad limit with a usage error naming what is allowed", async () => {
    const state = await cli(["jobs", "list", "--state", "sleeping"]);
    expect(state.code).toBe(2);
    expect(state.stderr).toContain('--state "sleeping" is not a run state; allowed: waiting,');
    expect(state.stderr).toContain("parked");
    const limit = await cli(["jobs", "list", "--limit", "0"]);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain("--limit must be a whole number from 1 to 1000");
  });
});

describe("echo-runner jobs show", () => {
  it("shows a finished run's transcript, journal and decisions", async () => {
    const { code, stdout } = await cli(["jobs", "show", done.runId]);
    expect(code).toBe(0);
    expect(stdout).toContain(`Run ${done.runId}: completed`);
    expect(stdout).toContain("Task (scripted, attended): write two files");
    expect(stdout).toContain("Transcript (3 model step(s)):");
    expect(stdout).toContain('→ #1 write_file {"content":"step-1","path":"f1.txt"}');
    expect(stdout).toContain("step 2: two files written");
    expect(stdout).toMatch(/#0 write_file COMPLETED attempt 1 key [0-9a-f]{12}… → \{.*"success":true/);
    expect(stdout).toMatch(/write_file ALLOW at step \d+/);
    expect(stdout).toContain("write_file executed → success");
    expect(stdout).toContain("Approvals (0):");

    const detail = JSON.parse((await cli(["jobs", "show", done.runId, "--json"])).stdout) as RunDetail;
    expect(detail.run?.outcome).toBe("completed");
    expect(detail.transcript).toHaveLength(3);
    expect(detail.journal.map((e) => e.tool)).toEqual(["write_file", "write_file"]);
    expect(detail.decisions.map((d) => d.kind)).toEqual(["decision", "execution", "decision", "execution"]);
  });

  it("shows a parked run's ask decision and its pending approval", async () => {
    const { code, stdout } = await cli(["jobs", "show", parked.runId]);
    expect(code).toBe(0);
    expect(stdout).toContain(`Run ${parked.runId}: parked (job state delayed`);
    expect(stdout).toContain('→ #0 exec {"command":"make deploy"}');
    expect(stdout).toContain("exec ASK at step 11");
    expect(stdout).toMatch(/[0-9a-f]{32} exec \(exec\) PENDING/);
    expect(stdout).toContain("Journal (0 tool call(s)):");
  });

  it("fails with RUN_NOT_FOUND and exit code 1 for an id no part of the system knows", async () => {
    const { code, stdout, stderr } = await cli(["jobs", "show", "run-that-never-was"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain('RUN_NOT_FOUND: no run "run-that-never-was"');
    expect(stderr).toContain("echo-runner jobs list");
  });

  it("needs exactly one run id", async () => {
    const { code, stderr } = await cli(["jobs", "show"]);
    expect(code).toBe(2);
    expect(stderr).toContain("expected exactly one run id");
  });
});
