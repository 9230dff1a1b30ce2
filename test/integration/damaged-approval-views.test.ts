import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunOperations } from "../../src/agent/index.js";
import { type ApprovalRecord, ApprovalStore } from "../../src/approvals/index.js";
import { bufferIo } from "../../src/cli/buffer-io.fixture.js";
import { runCli } from "../../src/cli/run-cli.js";
import { dashboardPage } from "../../src/http/admin/index.js";
import { createHttpServer, OperatorCredentials } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { type RunDetail, RunInspector, type RunSummary } from "../../src/runs/index.js";
import { ScheduleService, ScheduleStore } from "../../src/scheduler/index.js";
import { agentQueue, testPayload } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * One damaged approval request in Redis (its status field is not a status) stops no view: the
 * runs are listed and shown (`jobs list`, `jobs show`, /admin), the run whose request is damaged
 * says so, and /admin's dashboard lists the healthy pending request with its buttons, names the
 * damaged one, and the healthy one is approved from the dashboard's own form.
 */

const TOKEN = "damaged-views-token-0123456789-abcdefgh";
const redis = testRedisClient();
const keyPrefix = uniquePrefix("damaged-views");
const queue = agentQueue(redis, keyPrefix);
const store = new ApprovalStore({
  redis,
  keyPrefix,
  policy: {
    waitTimeoutMs: 3_600_000,
    approvers: [
      { id: "alice", email: null },
      { id: "Olga Operator", email: null },
    ],
  },
});
const inspector = new RunInspector({ redis, keyPrefix, approvals: store });
const operations = new RunOperations({ redis, keyPrefix, approvals: store });
const app = createHttpServer({
  redis,
  logger: createLogger({ level: "silent", format: "json" }),
  operators: new OperatorCredentials([{ id: "Olga Operator", token: TOKEN }]),
  runs: { actions: operations, inspector },
  admin: {
    keyPrefix,
    publicUrl: "http://127.0.0.1:8787",
    approvals: store,
    runs: inspector,
    queues: [queue],
    schedules: new ScheduleService({ store: new ScheduleStore({ redis, keyPrefix }) }),
  },
});
const okRun = testPayload({}, { task: "a healthy run" });
const badRun = testPayload({}, { task: "a run with a damaged request" });
let healthy: ApprovalRecord;
let sibling: ApprovalRecord;
let damaged: ApprovalRecord;
let dir: string;
let configPath: string;
let n = 0;

function register(runId: string, tool = "exec"): Promise<ApprovalRecord> {
  n += 1;
  return store
    .register({
      runId,
      jobId: runId,
      traceId: `trace-${runId}`,
      idempotencyKey: `key-${n}`,
      tool,
      args: { command: `make step-${n}` },
      risk: "exec",
      reason: "needs a person",
      agent: "tester",
      channel: "api",
      owner: "ann",
    })
    .then((r) => r.record);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-damaged-views-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(configPath, `redis:\n  key_prefix: "${keyPrefix}"\n`);
  // Two runs waiting for a worker (none runs here), each with requests in the store.
  await enqueueAgentRun(queue, okRun);
  await enqueueAgentRun(queue, badRun);
  healthy = await register(okRun.runId);
  sibling = await register(badRun.runId);
  damaged = await register(badRun.runId);
  await store.decide({
    id: sibling.id,
    actor: { kind: "operator", id: "alice", via: "cli" },
    decision: "deny",
  });
  await redis.hset(store.keys.request(damaged.id), "status", "<b>approved</b>");
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await inspector.close();
  await operations.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

async function cli(args: string[]) {
  const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl() }, dir);
  const code = await runCli([...args, "--config", configPath], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

describe("run views with a damaged approval request", () => {
  it("`jobs list` lists every run and marks the one whose request is damaged", async () => {
    const { code, stdout, stderr } = await cli(["jobs", "list"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    const bad = lines.find((l) => l.includes(badRun.runId));
    expect(bad).toContain(`approval ${damaged.id} DAMAGED (APPROVAL_CORRUPT)`);
    expect(lines.find((l) => l.includes(okRun.runId))).not.toContain("DAMAGED");
    const json = await cli(["jobs", "list", "--json"]);
    const runs = JSON.parse(json.stdout).runs as RunSummary[];
    expect(runs.find((r) => r.runId === badRun.runId)?.damagedApprovals).toEqual([
      { id: damaged.id, code: "APPROVAL_CORRUPT", message: expect.stringContaining("status") },
    ]);
    expect(runs.find((r) => r.runId === okRun.runId)?.damagedApprovals).toEqual([]);
  });

  it("`jobs show` shows the run with its readable request and names the damaged one", async () => {
    const { code, stdout } = await cli(["jobs", "show", badRun.runId]);
    expect(code).toBe(0);
    expect(stdout).toContain(`Note: APPROVAL_CORRUPT: approval request ${damaged.id} is corrupt`);
    expect(stdout).toContain("Approvals (2):");
    expect(stdout).toContain(`${sibling.id} exec (exec) DENIED`);
    expect(stdout).toContain(`${damaged.id} DAMAGED (APPROVAL_CORRUPT)`);
    const detail = JSON.parse((await cli(["jobs", "show", badRun.runId, "--json"])).stdout) as RunDetail;
    expect(detail.approvals.map((a) => a.id)).toEqual([sibling.id]);
    expect(detail.damagedApprovals.map((d) => d.id)).toEqual([damaged.id]);
  });
});

describe("the runs API with a damaged approval request", () => {
  it("lists and shows every run, the damaged request named on its run", async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const list = await app.inject({ method: "GET", url: "/api/runs", headers });
    expect(list.statusCode).toBe(200);
    const runs = list.json().runs as RunSummary[];
    expect(runs.map((r) => r.runId).sort()).toEqual([okRun.runId, badRun.runId].sort());
    expect(runs.find((r) => r.runId === badRun.runId)?.damagedApprovals.map((d) => d.id)).toEqual([
      damaged.id,
    ]);
    const show = await app.inject({
      method: "GET",
      url: `/api/runs/${encodeURIComponent(badRun.runId)}`,
      headers,
    });
    expect(show.statusCode).toBe(200);
    const detail = show.json().run as RunDetail;
    expect(detail.approvals.map((a) => a.id)).toEqual([sibling.id]);
    expect(detail.damagedApprovals).toEqual([
      { id: damaged.id, code: "APPROVAL_CORRUPT", message: expect.stringContaining(damaged.id) },
    ]);
  });
});

describe("/admin with a damaged approval request", () => {
  async function signIn(): Promise<string> {
    const res = await app.inject({
      method: "POST",
      url: "/admin/login",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ token: TOKEN }).toString(),
    });
    expect(res.statusCode).toBe(303);
    const cookie = String(res.headers["set-cookie"]).split(";")[0]!;
    expect(cookie).toMatch(/^echo_admin=/);
    return cookie;
  }
  const get = (url: string, cookie: string) => app.inject({ method: "GET", url, headers: { cookie } });

  it("lists the healthy pending request with its buttons, names the damaged one, and approves the healthy one", async () => {
    const cookie = await signIn();
    const page = await get("/admin", cookie);
    expect(page.statusCode).toBe(200);
    const html = page.body;
    expect(html).toContain(`id="approval-${healthy.id}"`);
    expect(html).toContain(`id="approve-${healthy.id}"`);
    expect(html).toContain(`id="deny-${healthy.id}"`);
    // The damaged one is named with what is wrong, escaped, and offered no button.
    const notice = /<div class="error" id="damaged-approvals">[\s\S]*?<\/div>/.exec(html)?.[0] ?? "";
    expect(notice).toContain("1 pending approval request cannot be read");
    expect(notice).toContain(
      `<code>${damaged.id}</code> APPROVAL_CORRUPT: approval request ${damaged.id} is corrupt`,
    );
    expect(notice).toContain("expected one of &quot;pending&quot;");
    expect(html).not.toContain(`approve-${damaged.id}`);
    expect(html).not.toContain("<b>approved</b>");
    // Recent runs: both, the damaged request named under its run's outcome.
    expect(html).toContain(`data-run="${okRun.runId}"`);
    const badRow = new RegExp(`<tr data-run="${badRun.runId}">[\\s\\S]*?</tr>`).exec(html)?.[0] ?? "";
    expect(badRow).toContain(`approval <code>${damaged.id}</code> damaged (APPROVAL_CORRUPT)`);

    // Approve the healthy one with the page's own form (its action and CSRF secret).
    const form = new RegExp(
      `<form class="inline" method="post" action="([^"]+)"><input type="hidden" name="csrf" value="([^"]+)">\\s*<input type="hidden" name="decision" value="approve"><button type="submit" class="approve" id="approve-${healthy.id}"`,
    ).exec(html);
    expect(form).not.toBeNull();
    const decided = await app.inject({
      method: "POST",
      url: form![1]!,
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ csrf: form![2]!, decision: "approve" }).toString(),
    });
    expect(decided.statusCode).toBe(303);
    expect(decided.headers.location).toBe("/admin?notice=approved");
    expect((await store.get(healthy.id))?.status).toBe("approved");

    // The damaged one decides nothing, and the operator is told why.
    const refused = await app.inject({
      method: "POST",
      url: `/admin/approvals/${damaged.id}/decision`,
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ csrf: form![2]!, decision: "approve" }).toString(),
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain("is corrupt");
    expect(await redis.hget(store.keys.request(damaged.id), "status")).toBe("<b>approved</b>");
    const after = await get("/admin", cookie);
    expect(after.body).toContain('id="damaged-approvals"');
    expect(after.body).not.toContain(`id="approval-${healthy.id}"`);
  });

  it("lists every run on /admin/runs and shows the run whose request is damaged", async () => {
    const cookie = await signIn();
    const list = await get("/admin/runs", cookie);
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`data-run="${okRun.runId}"`);
    expect(list.body).toContain(`approval <code>${damaged.id}</code> damaged (APPROVAL_CORRUPT)`);
    const run = await get(`/admin/runs/${encodeURIComponent(badRun.runId)}`, cookie);
    expect(run.statusCode).toBe(200);
    expect(run.body).toContain(`APPROVAL_CORRUPT: approval request ${damaged.id} is corrupt`);
    expect(run.body).toContain('<td class="approval-status">denied</td>');
  });

  it("escapes what a damaged record's message says", () => {
    const html = dashboardPage("", {
      operator: "o",
      csrf: "c",
      notice: null,
      queues: [],
      pending: [],
      damagedPending: [{ id: "<i>id</i>", code: "APPROVAL_CORRUPT", message: '<script>alert("x")</script>' }],
      runs: [],
      schedules: [],
      now: 0,
    });
    expect(html).toContain("&lt;i&gt;id&lt;/i&gt;");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain('id="no-pending"');
  });
});
