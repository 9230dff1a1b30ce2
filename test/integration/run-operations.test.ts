import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { RunOperations, storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { bufferIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/run-cli.js";
import { createHttpServer, OperatorCredentials } from "../../src/http/index.js";
import { AuditTrail } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import {
  type AgentJobPayload,
  type AgentQueue,
  enqueueAgentRun,
  findRunJob,
  type RunWorker,
} from "../../src/queue/index.js";
import { type RunDetail, RunInspector } from "../../src/runs/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import {
  agentQueue,
  countExecutions,
  countingWriteTool,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import { freePort } from "../helpers/free-port.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Operators' cancel, retry and rerun, from the CLI and the JSON API, against the real parts: the
 * agent worker (one at a time, so no other worker takes a test's run), the HTTP server with the
 * approval pages and the runs API, real Redis. Effects are counted outside the journal (a file the
 * test tool appends to).
 */

const TOKEN = "run-operations-token-0123456789-abcdefgh";
const OPERATOR = "Olga Operator";
const redis = testRedisClient();
const keyPrefix = uniquePrefix("runops");
const logger = createLogger({ level: "silent", format: "json" });
let dir: string;
let configPath: string;
let queue: AgentQueue;
const APPROVER = "approver";
const store = new ApprovalStore({
  redis,
  keyPrefix,
  policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: APPROVER, email: null }] },
});
let app: ReturnType<typeof createHttpServer>;
let base: string;
let operations: RunOperations;
let inspector: RunInspector;

async function cli(args: string[], stdin = "") {
  const out = bufferIo(stdin, { HOME: dir, REDIS_URL: testRedisUrl(), USER: "cli-operator" }, dir);
  const code = await runCli([...args, "--config", configPath], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

async function api(method: "GET" | "POST", path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function show(runId: string): Promise<RunDetail> {
  const { code, stdout, stderr } = await cli(["jobs", "show", runId, "--json"]);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as RunDetail;
}

let execRuns = 0;
const exec = defineTool({
  name: "exec",
  description: "counts its runs (test tool): the gate asks a person first",
  parameters: Type.Object({ command: Type.String() }),
  async execute() {
    execRuns++;
    return toolSuccess("deployed");
  },
});

/**
 * A run parked on an exec approval, with its link; the worker that ran it to the park is stopped,
 * unless `keep` asks for it (then it is returned, to be closed by the caller).
 */
async function parkedRun(keep = false): Promise<{
  payload: AgentJobPayload;
  approvalId: string;
  link: string;
  worker?: RunWorker;
}> {
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [exec],
    script: stringify([
      { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
      { content: "deployed" },
    ]),
    configOverrides: { permissions: { elevated: { enabled: false } } },
  });
  const notifications = new ApprovalNotifications({ store, notifiers: [], publicUrl: base, logger });
  const worker = startAgentWorker({
    connection: redis,
    keyPrefix,
    concurrency: 1,
    deps: { ...deps, approvals: storeApprovals({ store, notifications, logger }) },
    cancels: operations,
  });
  const payload = testPayload();
  try {
    await enqueueAgentRun(queue, payload);
    await expect
      .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
      .toBe("delayed");
  } finally {
    if (!keep) await worker.close();
  }
  const request = (await store.list({ status: "pending" })).find((r) => r.runId === payload.runId);
  expect(request).toBeDefined();
  const token = await store.issueToken(request!.id, APPROVER);
  expect(token).not.toBeNull();
  return {
    payload,
    approvalId: request!.id,
    link: `${base}/approvals/${request!.id}?t=${token}`,
    ...(keep ? { worker } : {}),
  };
}

/** Runs `payload` to its end on a worker with `script`, then stops the worker. */
async function runOnce(payload: AgentJobPayload, script: string, counter: string, enqueue = true) {
  const { deps } = await testRunDeps({ redis, keyPrefix, tools: [countingWriteTool(counter)], script });
  const worker: RunWorker = startAgentWorker({
    connection: redis,
    keyPrefix,
    concurrency: 1,
    deps,
    cancels: operations,
  });
  try {
    if (enqueue) await enqueueAgentRun(queue, payload);
    return worker;
  } catch (err) {
    await worker.close();
    throw err;
  }
}

async function finalState(runId: string): Promise<string> {
  let state = "";
  await expect
    .poll(
      async () => {
        state = (await (await findRunJob(queue, runId))?.getState()) ?? "missing";
        return state === "completed" || state === "failed";
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  return state;
}

/** A run that wrote two files, then failed for good (its script ended without a final answer). */
async function failedRunWithTwoWrites(): Promise<{ payload: AgentJobPayload; counter: string }> {
  const counter = join(await mkdtemp(join(tmpdir(), "echo-runops-")), "counter.txt");
  const payload = testPayload({}, { task: "write two files" });
  const twoWritesNoAnswer = stringify([
    { tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "a" } }] },
    { tool_calls: [{ name: "write_file", arguments: { path: "b.txt", content: "b" } }] },
  ]);
  const worker = await runOnce(payload, twoWritesNoAnswer, counter);
  try {
    expect(await finalState(payload.runId)).toBe("failed");
  } finally {
    await worker.close();
  }
  const job = await findRunJob(queue, payload.runId);
  expect(job?.failedReason).toContain("MODEL_SCRIPT_EXHAUSTED");
  expect([...(await countExecutions(counter)).values()]).toEqual([1, 1]);
  return { payload, counter };
}

/** The script the operator fixed: the same two writes, then the final answer. */
const FIXED_SCRIPT = stringify([
  { tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "a" } }] },
  { tool_calls: [{ name: "write_file", arguments: { path: "b.txt", content: "b" } }] },
  { content: "both files written" },
]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-runops-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(configPath, `redis:\n  key_prefix: "${keyPrefix}"\n`);
  queue = agentQueue(redis, keyPrefix);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  inspector = new RunInspector({ redis, keyPrefix, approvals: store });
  operations = new RunOperations({ redis, keyPrefix, approvals: store });
  app = createHttpServer({
    redis,
    logger,
    keyPrefix,
    operators: new OperatorCredentials([{ id: OPERATOR, token: TOKEN }]),
    approvals: { store: store, publicUrl: base },
    runs: { actions: operations, inspector },
  });
  await app.listen({ host: "127.0.0.1", port });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await inspector?.close();
  await operations?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

describe("cancelling a parked run", () => {
  it("from the CLI: withdraws its link (the page says cancelled), ends it cancelled, journals and audits who and why", async () => {
    const { payload, approvalId, link } = await parkedRun();
    const { code, stdout, stderr } = await cli(["jobs", "cancel", payload.runId, "--reason", "wrong target"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(`cancelled ${payload.runId}; 1 approval request(s) withdrawn\n`);

    expect((await store.get(approvalId))?.status).toBe("cancelled");
    const page = await (await fetch(link)).text();
    expect(page).toContain("cancelled: its run was cancelled or removed");

    const detail = await show(payload.runId);
    expect(detail.run?.outcome).toBe("cancelled");
    expect(detail.run?.detail).toBe("RUN_CANCELLED: cancelled by cli-operator (via cli): wrong target");
    const cancelEntry = detail.journal.find((j) => j.key.startsWith("cancel:"));
    expect(cancelEntry?.result).toMatchObject({ by: "cli-operator", via: "cli", reason: "wrong target" });
    expect(detail.operatorActions).toEqual([
      expect.objectContaining({ action: "cancel", by: "cli-operator", via: "cli", reason: "wrong target" }),
    ]);
    expect((await new AuditTrail({ redis, keyPrefix }).verify()).ok).toBe(true);
    // It stays ended: its deadline passing does not wake it.
    expect(await (await findRunJob(queue, payload.runId))?.getState()).toBe("failed");
  });

  it("from the API: answers cancelled, as the token's owner, and the link page says cancelled", async () => {
    const { payload, approvalId, link } = await parkedRun();
    const res = await api("POST", `/api/runs/${payload.runId}/cancel`, { reason: "not today" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ action: "cancel", runId: payload.runId, status: "cancelled" });
    expect(res.json.withdrawn).toEqual([approvalId]);
    expect(await (await fetch(link)).text()).toContain("cancelled: its run was cancelled or removed");
    const got = await api("GET", `/api/runs/${payload.runId}`);
    const run = got.json.run as RunDetail;
    expect(run.run?.outcome).toBe("cancelled");
    expect(run.operatorActions).toEqual([
      expect.objectContaining({ action: "cancel", by: OPERATOR, via: "api", reason: "not today" }),
    ]);
  });
});

describe("retrying a failed run", () => {
  it("from the CLI: the same run id resumes from its journal, completed calls are not repeated, and it completes", async () => {
    const { payload, counter } = await failedRunWithTwoWrites();
    const worker = await runOnce(payload, FIXED_SCRIPT, counter, false);
    try {
      const { code, stdout, stderr } = await cli(["jobs", "retry", payload.runId]);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain(`retrying ${payload.runId} from its journal`);
      expect(await finalState(payload.runId)).toBe("completed");
    } finally {
      await worker.close();
    }
    // Each write ran once, across both attempts: the retry replayed them from the journal.
    expect([...(await countExecutions(counter)).values()]).toEqual([1, 1]);
    const detail = await show(payload.runId);
    expect(detail.run?.outcome).toBe("completed");
    expect(detail.run?.detail).toBe("both files written");
    expect(detail.operatorActions.map((a) => [a.action, a.by, a.via])).toEqual([
      ["retry", "cli-operator", "cli"],
    ]);
  });

  it("from the API: the same, recorded as the token's owner", async () => {
    const { payload, counter } = await failedRunWithTwoWrites();
    const worker = await runOnce(payload, FIXED_SCRIPT, counter, false);
    try {
      const res = await api("POST", `/api/runs/${payload.runId}/retry`, {});
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ action: "retry", status: "queued", started: payload.runId });
      expect(await finalState(payload.runId)).toBe("completed");
    } finally {
      await worker.close();
    }
    expect([...(await countExecutions(counter)).values()]).toEqual([1, 1]);
    expect((await show(payload.runId)).operatorActions.map((a) => [a.action, a.by])).toEqual([
      ["retry", OPERATOR],
    ]);
  });
});

describe("retrying a run cancelled while parked", () => {
  it("asks its approver again, and once approved the call runs once and the run completes", async () => {
    const { payload, approvalId, worker } = await parkedRun(true);
    try {
      expect((await cli(["jobs", "cancel", payload.runId])).code).toBe(0);
      expect((await store.get(approvalId))?.status).toBe("cancelled");
      const res = await api("POST", `/api/runs/${payload.runId}/retry`, { reason: "go ahead after all" });
      expect(res.status).toBe(200);
      await expect
        .poll(async () => (await store.get(approvalId))?.status, { timeout: 15_000 })
        .toBe("pending");
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("delayed");
      const before = execRuns;
      const decided = await store.decide({
        id: approvalId,
        actor: { kind: "operator", id: APPROVER, via: "api" },
        decision: "approve",
      });
      expect(decided.outcome).toBe("decided");
      // What the worker part's promoter does from the decision events.
      await (await findRunJob(queue, payload.runId))?.promote();
      expect(await finalState(payload.runId)).toBe("completed");
      expect(execRuns - before).toBe(1);
    } finally {
      await worker?.close();
    }
  });
});

describe("rerunning a run", () => {
  it("starts a new run with the same agent and task, linked both ways (CLI and API)", async () => {
    const counter = join(dir, "rerun-counter.txt");
    const payload = testPayload({}, { task: "write one file" });
    const worker = await runOnce(payload, writeScript(1, "one file written"), counter);
    try {
      expect(await finalState(payload.runId)).toBe("completed");
      const { code, stdout, stderr } = await cli(["jobs", "rerun", payload.runId]);
      expect(code, stderr).toBe(0);
      const fromCli = /started as (\S+)\n/.exec(stdout)?.[1];
      expect(fromCli).toBeDefined();
      const res = await api("POST", `/api/runs/${payload.runId}/rerun`, {});
      expect(res.status).toBe(200);
      const fromApi = res.json.started as string;
      for (const id of [fromCli!, fromApi]) expect(await finalState(id)).toBe("completed");

      const original = await show(payload.runId);
      expect(original.reruns).toEqual([fromCli, fromApi]);
      const rerun = await show(fromCli!);
      expect(rerun.run?.rerunOf).toBe(payload.runId);
      expect(rerun.task).toBe("write one file");
      expect(rerun.run?.agent).toBe(payload.agentId);
      expect(rerun.run?.traceId).not.toBe(payload.traceId);
      const text = await cli(["jobs", "show", payload.runId]);
      expect(text.stdout).toContain(`Reruns: ${fromCli}, ${fromApi}`);
      expect((await cli(["jobs", "show", fromApi])).stdout).toContain(`Rerun of: ${payload.runId}`);
    } finally {
      await worker.close();
    }
    // Three runs, each wrote once (its own journal, its own keys).
    expect([...(await countExecutions(counter)).values()]).toEqual([1, 1, 1]);
  });
});

describe("refusals fail closed, naming the state and what is allowed", () => {
  it("an unknown id, cancelling a finished run, retrying a completed one", async () => {
    const unknown = await cli(["jobs", "cancel", "no-such-run"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("RUN_NOT_FOUND");
    expect((await api("POST", "/api/runs/no-such-run/cancel", {})).status).toBe(404);

    const counter = join(dir, "refusal-counter.txt");
    const payload = testPayload();
    const worker = await runOnce(payload, writeScript(0, "nothing to do"), counter);
    try {
      expect(await finalState(payload.runId)).toBe("completed");
    } finally {
      await worker.close();
    }
    const cancel = await cli(["jobs", "cancel", payload.runId]);
    expect(cancel.stderr).toContain("RUN_NOT_CANCELLABLE");
    expect(cancel.stderr).toContain(`run ${payload.runId} is already completed`);
    expect(cancel.stderr).toContain("waiting, running, parked or retry-scheduled");
    const retry = await api("POST", `/api/runs/${payload.runId}/retry`, {});
    expect(retry.status).toBe(409);
    expect(retry.json.error).toBe("RUN_NOT_RETRYABLE");
    expect(retry.json.message).toContain("is completed; retry takes a failed or cancelled run");
    const wrongToken = await fetch(`${base}/api/runs/${payload.runId}/cancel`, {
      method: "POST",
      headers: { authorization: "Bearer not-a-token-of-anyone-at-all-0123456789" },
    });
    expect(wrongToken.status).toBe(401);
  });
});

describe("bulk", () => {
  it("counts the matching runs and asks first; --yes skips the question", async () => {
    const a = await parkedRun();
    const b = await parkedRun();
    const asked = await cli(["jobs", "cancel", "--state", "parked", "--agent", a.payload.agentId], "n\n");
    expect(asked.code).toBe(1);
    expect(asked.stdout).toContain("Cancel 2 run(s)?");
    expect(asked.stdout).toContain("nothing done");
    expect(await (await findRunJob(queue, a.payload.runId))?.getState()).toBe("delayed");

    const done = await cli(["jobs", "cancel", "--state", "parked", "--since", "10m", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("2 of 2 run(s) done");
    for (const { payload } of [a, b]) expect((await show(payload.runId)).run?.outcome).toBe("cancelled");
  });
});
