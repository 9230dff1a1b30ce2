import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { RunOperations } from "../../src/agent/index.js";
import { ApprovalStore } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { bufferIo } from "../../src/cli/buffer-io.fixture.js";
import { runCli } from "../../src/cli/run-cli.js";
import { createHttpServer, OperatorCredentials } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { type AgentJobPayload, enqueueAgentRun, findRunJob, openAgentQueue } from "../../src/queue/index.js";
import { RUN_END_OUTCOMES, RunInspector, type RunSummary } from "../../src/runs/index.js";
import { type RunningPart, startWorkerPart } from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import { freePort } from "../helpers/free-port.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * The run list an operator works with, over real runs (the worker as `echo-runner worker` builds
 * it, real Redis, real approvals that expire): one outcome vocabulary in `jobs list`, `GET
 * /api/runs` and `/admin/runs`; filters by state, outcome, schedule, agent, owner and time; a
 * cursor that stays valid while runs are added.
 */

const TOKEN = "run-list-operator-token-0123456789-abcdef";
const OPERATOR = "olga";
const keyPrefix = uniquePrefix("run-list").replace(/:/g, "-");
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
let dir: string;
let configPath: string;
let worker: RunningPart;
let app: ReturnType<typeof createHttpServer>;
let base: string;
let inspector: RunInspector;
let operations: RunOperations;
let store: ApprovalStore;
const queue = agentQueue(redis, keyPrefix);

/** Asks to run a command nobody approves (it expires), then answers. */
const denied = testPayload(
  { userId: "ann", agentId: "cleaner", origin: { kind: "schedule", scheduleId: "nightly", scheduledFor: 1 } },
  { model: "asks", maxSteps: 5 },
);
const plain = testPayload({ userId: "bob", agentId: "writer" }, { model: "plain", maxSteps: 5 });
/** Its script ends without a final answer: the run fails with MODEL_SCRIPT_EXHAUSTED. */
const broken = testPayload({ userId: "bob", agentId: "writer" }, { model: "broken", maxSteps: 5 });

async function cli(args: string[]) {
  const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl(), USER: OPERATOR }, dir);
  const code = await runCli([...args, "--config", configPath], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

async function listed(args: string[]): Promise<{ runs: RunSummary[]; next_cursor: string | null }> {
  const { code, stdout, stderr } = await cli(["jobs", "list", ...args, "--json"]);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as { runs: RunSummary[]; next_cursor: string | null };
}

/** Polls until the run has ended (expect.poll works only inside a test; this runs in beforeAll too). */
async function finished(payload: AgentJobPayload): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await (await findRunJob(queue, payload.runId))?.getState();
    if (state === "completed" || state === "failed") return;
    if (Date.now() > deadline) throw new Error(`run ${payload.runId} did not end (state ${state})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-run-list-"));
  const script = (steps: unknown[]) => stringify(steps);
  await writeFile(
    join(dir, "asks.yaml"),
    script([
      { content: "cleaning up", tool_calls: [{ name: "exec", arguments: { command: "rm -rf build" } }] },
      { content: "done, without cleaning" },
    ]),
  );
  await writeFile(join(dir, "plain.yaml"), script([{ content: "written" }]));
  await writeFile(
    join(dir, "broken.yaml"),
    script([{ tool_calls: [{ name: "exec", arguments: { command: "ls" } }] }]),
  );
  const config = await testConfig(dir, {
    redis: { url: testRedisUrl(), key_prefix: keyPrefix },
    security: { profile: "personal_cli" },
    execution: {
      network_policy: "allow",
      in_doubt_policy: "fail",
      network_probe: { targets: [new URL(testRedisUrl()).host], timeout_ms: 1000 },
    },
    permissions: { elevated: { enabled: false }, approval: { wait_timeout_seconds: 2 } },
    approvers: [{ id: "ann" }, { id: OPERATOR }],
    models: {
      asks: { provider: "scripted", script: join(dir, "asks.yaml") },
      plain: { provider: "scripted", script: join(dir, "plain.yaml") },
      broken: { provider: "scripted", script: join(dir, "broken.yaml") },
    },
    logging: { level: "silent", format: "json" },
  });
  configPath = join(dir, "echo.yaml");
  await writeFile(configPath, `redis:\n  key_prefix: "${keyPrefix}"\n`);
  const exec = defineTool({
    name: "exec",
    description: "test exec (never approved here)",
    parameters: Type.Object({ command: Type.String() }),
    async execute() {
      return toolSuccess("ran");
    },
  });
  worker = await startWorkerPart(
    { config, logger, env: {}, redis, baseDir: dir, protectedPaths: [] },
    { registry: createToolRegistry([exec]), releaseRun: async () => 0, close: async () => undefined },
  );
  for (const payload of [denied, plain, broken]) {
    await enqueueAgentRun(queue, payload);
    await finished(payload);
  }
  store = new ApprovalStore({
    redis,
    keyPrefix,
    policy: { waitTimeoutMs: 2000, approvers: [{ id: OPERATOR, email: null }] },
  });
  inspector = new RunInspector({ redis, keyPrefix, approvals: store });
  operations = new RunOperations({ redis, keyPrefix, approvals: store });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = createHttpServer({
    redis,
    logger,
    keyPrefix,
    operators: new OperatorCredentials([{ id: OPERATOR, token: TOKEN }]),
    approvals: { store, publicUrl: base },
    runs: { actions: operations, inspector },
    admin: {
      keyPrefix,
      publicUrl: base,
      approvals: store,
      runs: inspector,
      queues: [queue],
      schedules: { listWithDamaged: async () => ({ views: [], damaged: [] }) },
    },
  });
  await app.listen({ host: "127.0.0.1", port });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await inspector?.close();
  await operations?.close();
  const q = openAgentQueue(redis, keyPrefix);
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

describe("one outcome vocabulary", () => {
  it("jobs list: an expired approval reads as a denial, a failure names its code", async () => {
    const { runs, next_cursor } = await listed([]);
    expect(next_cursor).toBeNull();
    expect(runs.map((r) => [r.runId, r.outcome, r.outcomeText])).toEqual([
      [broken.runId, "failed", "failed: MODEL_SCRIPT_EXHAUSTED"],
      [plain.runId, "completed", "completed"],
      [denied.runId, "completed with denials", "completed with denials"],
    ]);
    for (const r of runs) expect(RUN_END_OUTCOMES).toContain(r.outcome);
    const text = await cli(["jobs", "list"]);
    const line = text.stdout.split("\n").find((l) => l.startsWith(denied.runId));
    expect(line).toContain("completed with denials");
    expect(text.stdout).toContain("failed: MODEL_SCRIPT_EXHAUSTED");
  });

  it("the JSON API and /admin say the same words", async () => {
    const res = await fetch(`${base}/api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { runs: RunSummary[]; next_cursor: string | null };
    expect(body.runs.map((r) => r.outcomeText)).toEqual([
      "failed: MODEL_SCRIPT_EXHAUSTED",
      "completed",
      "completed with denials",
    ]);
    const cookie = await signIn();
    const html = await (await fetch(`${base}/admin/runs`, { headers: { cookie } })).text();
    const cell = (runId: string) =>
      new RegExp(`data-run="${runId}">[\\s\\S]*?<span class="outcome">([^<]*)</span>`).exec(html)?.[1];
    expect(cell(denied.runId)).toBe("completed with denials");
    expect(cell(broken.runId)).toBe("failed: MODEL_SCRIPT_EXHAUSTED");
    const dashboard = await (await fetch(`${base}/admin`, { headers: { cookie } })).text();
    expect(dashboard).toContain("completed with denials");
  });
});

describe("jobs show tells what happened", () => {
  it("an expired approval as a denial, the first start, and no call 'in flight' in a failed run", async () => {
    const denial = await cli(["jobs", "show", denied.runId]);
    expect(denial.code, denial.stderr).toBe(0);
    expect(denial.stdout).toContain(`Run ${denied.runId}: completed with denials`);
    expect(denial.stdout).toContain("EXPIRED (denied: nobody decided before the deadline)");
    // The run parked and was picked up again: BullMQ's processedOn is the resume; started is the first start.
    const detail = JSON.parse((await cli(["jobs", "show", denied.runId, "--json"])).stdout) as {
      run: RunSummary;
    };
    const job = await findRunJob(queue, denied.runId);
    expect(detail.run.started).not.toBeNull();
    expect(detail.run.started!).toBeLessThan(job!.processedOn!);

    const failure = await cli(["jobs", "show", broken.runId]);
    expect(failure.stdout).toContain(`Run ${broken.runId}: failed: MODEL_SCRIPT_EXHAUSTED`);
    expect(failure.stdout).not.toContain("(model call in flight)");
    expect(failure.stdout).toMatch(
      /step 1: \(model call without an answer: the run ended failed: MODEL_SCRIPT_EXHAUSTED\)/,
    );
  });
});

describe("filters", () => {
  it("by outcome, agent, owner, schedule, state and time, the same from the CLI and the API", async () => {
    const ids = async (args: string[]) => (await listed(args)).runs.map((r) => r.runId);
    expect(await ids(["--outcome", "completed with denials"])).toEqual([denied.runId]);
    expect(await ids(["--outcome", "failed"])).toEqual([broken.runId]);
    expect(await ids(["--outcome", "failed: MODEL_SCRIPT_EXHAUSTED"])).toEqual([broken.runId]);
    expect(await ids(["--outcome", "failed: MODEL_AUTH_FAILED"])).toEqual([]);
    expect(await ids(["--outcome", "completed"])).toEqual([plain.runId]);
    expect(await ids(["--agent", "writer"])).toEqual([broken.runId, plain.runId]);
    expect(await ids(["--owner", "ann"])).toEqual([denied.runId]);
    expect(await ids(["--schedule", "nightly"])).toEqual([denied.runId]);
    expect(await ids(["--state", "failed"])).toEqual([broken.runId]);
    expect(await ids(["--since", "1h"])).toHaveLength(3);
    expect(await ids(["--until", new Date(plain.createdAt - 60_000).toISOString()])).toEqual([]);
    expect(await ids(["--agent", "writer", "--outcome", "completed"])).toEqual([plain.runId]);

    const api = async (query: string) => {
      const res = await fetch(`${base}/api/runs?${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      return { status: res.status, body: (await res.json()) as { runs?: RunSummary[]; message?: string } };
    };
    const byOwner = await api("owner=ann&outcome=completed%20with%20denials");
    expect(byOwner.body.runs?.map((r) => r.runId)).toEqual([denied.runId]);
    const bad = await api("outcome=sleeping");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("completed with denials");
  });

  it("refuses an unknown outcome and a cursor no page returned, naming what is allowed", async () => {
    const outcome = await cli(["jobs", "list", "--outcome", "fine"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain("completed with denials");
    const cursor = await cli(["jobs", "list", "--cursor", "not-a-cursor"]);
    expect(cursor.code).toBe(2);
    expect(cursor.stderr).toContain("next_cursor");
  });
});

describe("paging by cursor", () => {
  it("walks every run once, and a run added meanwhile does not shift the pages", async () => {
    const first = await listed(["--limit", "1"]);
    expect(first.runs.map((r) => r.runId)).toEqual([broken.runId]);
    expect(first.next_cursor).toEqual(expect.any(String));
    // A new run arrives between two pages: it goes before the first page, never into a later one.
    const added = testPayload({ userId: "bob", agentId: "writer" }, { model: "plain", maxSteps: 5 });
    await enqueueAgentRun(queue, added);
    await finished(added);
    const seen = [...first.runs.map((r) => r.runId)];
    let cursor = first.next_cursor;
    while (cursor !== null) {
      const page = await listed(["--limit", "1", "--cursor", cursor]);
      seen.push(...page.runs.map((r) => r.runId));
      cursor = page.next_cursor;
    }
    expect(seen).toEqual([broken.runId, plain.runId, denied.runId]);
    expect((await listed(["--limit", "1"])).runs.map((r) => r.runId)).toEqual([added.runId]);

    const text = await cli(["jobs", "list", "--agent", "writer", "--limit", "1"]);
    expect(text.stdout).toMatch(
      /next page: echo-runner jobs list --agent writer --limit 1 --config \S+ --cursor \S+\n$/,
    );

    const cookie = await signIn();
    const html = await (await fetch(`${base}/admin/runs?limit=2`, { headers: { cookie } })).text();
    const next = /<a id="next-page" href="([^"]+)"/.exec(html)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBeDefined();
    const second = await (await fetch(new URL(next!, base), { headers: { cookie } })).text();
    expect(second).toContain(`data-run="${plain.runId}"`);
    expect(second).toContain(`data-run="${denied.runId}"`);
    expect(second).not.toContain(`data-run="${added.runId}"`);
  }, 60_000);
});

describe("/admin without any operator token", () => {
  it("says how to enable it, with no 'Back to the dashboard' link to the same page", async () => {
    const port = await freePort();
    const bare = createHttpServer({
      redis,
      logger,
      keyPrefix,
      operators: new OperatorCredentials([]),
      admin: {
        keyPrefix,
        publicUrl: `http://127.0.0.1:${port}`,
        approvals: store,
        runs: inspector,
        queues: [queue],
        schedules: { listWithDamaged: async () => ({ views: [], damaged: [] }) },
      },
    });
    await bare.listen({ host: "127.0.0.1", port });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/admin`);
      expect(res.status).toBe(503);
      const html = await res.text();
      expect(html).toContain("give an approver `token_env`");
      expect(html).not.toContain("Back to the dashboard");
    } finally {
      await bare.close();
    }
  });
});

/** Signs in to /admin with the operator's own token; returns the session cookie. */
async function signIn(): Promise<string> {
  const res = await fetch(`${base}/admin/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: TOKEN }).toString(),
    redirect: "manual",
  });
  const cookie = res.headers.get("set-cookie");
  expect(cookie).toBeTruthy();
  return (cookie ?? "").split(";")[0] ?? "";
}
