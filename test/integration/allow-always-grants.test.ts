import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ApprovalKeys, type ApprovalStore } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { AuditTrail } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob } from "../../src/queue/index.js";
import {
  approvalsFromConfig,
  type RunningPart,
  startHttpPart,
  startWorkerPart,
} from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import { startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Allow-always grants, through a real worker (startWorkerPart), the real HTTP server (startHttpPart:
 * JSON API and /admin over a socket) and the real CLI process: an "approve always" becomes a grant
 * that `approvals grants list`, the API and /admin show; revoking it (from /admin with its CSRF
 * secret, from the CLI, from the API) makes the same call ask again; a grant older than
 * `permissions.approval.allow_always_ttl_days` allows nothing; and the audit trail records every
 * grant, use and revocation.
 */

const redis = testRedisClient();
const keyPrefix = uniquePrefix("grants");
const TOKEN = "t".repeat(40);
const logger = createLogger({ level: "silent", format: "json" });
const execs: string[] = [];
let dir: string;
let configPath: string;
let base: string;
let store: ApprovalStore;
let worker: RunningPart;
let http: RunningPart;
const queue = agentQueue(redis, keyPrefix);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-grants-"));
  await writeFile(
    join(dir, "script.yaml"),
    stringify([
      { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
      { content: "deployed" },
    ]),
  );
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const config = await testConfig(dir, {
    redis: { url: testRedisUrl(), key_prefix: keyPrefix },
    security: { profile: "personal_cli" },
    execution: {
      network_policy: "allow",
      in_doubt_policy: "fail",
      network_probe: { targets: [new URL(testRedisUrl()).host], timeout_ms: 1000 },
    },
    permissions: { elevated: { enabled: false }, approval: { allow_always_ttl_days: 7 } },
    http: { host: "127.0.0.1", port, public_url: base },
    operator: "olga",
    approvers: [{ id: "olga", email: "olga@example.test", token_env: "OLGA_TOKEN" }],
    models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
    logging: { level: "silent", format: "json" },
  });
  configPath = join(dir, "echo.yaml");
  const exec = defineTool({
    name: "exec",
    description: "records that it ran (test tool)",
    parameters: Type.Object({ command: Type.String() }),
    async execute(_args, ctx) {
      execs.push(ctx.executionId);
      return toolSuccess("done");
    },
  });
  const ctx = { config, logger, env: { OLGA_TOKEN: TOKEN }, redis, baseDir: dir, protectedPaths: [] };
  worker = await startWorkerPart(ctx, {
    registry: createToolRegistry([exec]),
    releaseRun: async () => 0,
    close: async () => undefined,
  });
  http = await startHttpPart(ctx);
  store = approvalsFromConfig(config, redis, {}, logger).store;
});

afterAll(async () => {
  await worker?.stop();
  await http?.stop();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(init.body ? { "content-type": "application/json" } : {}),
    },
  });

async function cli(...args: string[]): Promise<{ code: number | string; out: string }> {
  const child = startCli([...args, "--config", configPath], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, REDIS_URL: testRedisUrl(), OLGA_TOKEN: TOKEN },
  });
  const code = await child.exited;
  return { code, out: child.output() };
}

/** Runs agent "ops" once: "completed" (it ran without asking) or "parked" with its request id. */
async function run(): Promise<
  { state: "completed"; runId: string } | { state: "parked"; requestId: string; runId: string }
> {
  const payload = testPayload({ agentId: "ops" }, { workspace: dir });
  await enqueueAgentRun(queue, payload);
  let state: string | undefined;
  await expect
    .poll(async () => {
      state = await (await findRunJob(queue, payload.runId))?.getState();
      return state === "completed" || state === "delayed";
    })
    .toBe(true);
  if (state === "completed") return { state: "completed", runId: payload.runId };
  const [request] = (await store.list({ status: "pending" })).filter((r) => r.runId === payload.runId);
  return { state: "parked", requestId: request!.id, runId: payload.runId };
}

async function approveAlways(requestId: string, runId: string): Promise<void> {
  const res = await api(`/api/approvals/${requestId}/decision`, {
    method: "POST",
    body: JSON.stringify({ decision: "approve_always" }),
  });
  expect(res.status).toBe(200);
  await expect.poll(async () => (await findRunJob(queue, runId))?.getState()).toBe("completed");
}

async function listedIds(): Promise<string[]> {
  const { code, out } = await cli("approvals", "grants", "list", "--json");
  expect(code).toBe(0);
  return (JSON.parse(out) as { id: string }[]).map((g) => g.id);
}

async function adminSession(): Promise<{ cookie: string; csrf: string; html: string }> {
  const login = await fetch(`${base}/admin/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `token=${TOKEN}`,
    redirect: "manual",
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  const html = await (await fetch(`${base}/admin`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  return { cookie, csrf, html };
}

describe("allow-always grants can be seen, revoked and expire (real worker, server and CLI)", () => {
  // Several real CLI processes and HTTP round trips in one story (7 s alone): room for a loaded machine.
  it("lists, uses, revokes (admin, CLI, API), expires, and audits every grant, use and revocation", async () => {
    // An "approve always" makes a grant for agent ops and these exact arguments.
    const first = await run();
    if (first.state !== "parked") throw new Error("the first run should ask");
    await approveAlways(first.requestId, first.runId);
    const [id] = await listedIds();
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const viaApi = (await (await api("/api/approvals/grants")).json()) as {
      grants: { id: string; scope: string; scopeId: string; createdAt: number; expiresAt: number }[];
    };
    expect(viaApi.grants).toHaveLength(1);
    expect(viaApi.grants[0]).toMatchObject({ id, scope: "agent", scopeId: "ops", createdBy: "olga" });
    expect(viaApi.grants[0]!.expiresAt - viaApi.grants[0]!.createdAt).toBe(7 * 24 * 3600 * 1000);
    const { out: table } = await cli("approvals", "grants", "list");
    expect(table).toContain(`${id}  exec`);
    expect(table).toContain("agent ops");

    // Used: the next run of the same call asks nobody.
    const second = await run();
    expect(second.state).toBe("completed");
    expect(execs).toHaveLength(2);

    // /admin lists it with a Revoke form; without the session's CSRF secret nothing is revoked.
    const admin = await adminSession();
    expect(admin.html).toContain(`id="revoke-${id}"`);
    const forged = await fetch(`${base}/admin/grants/${id}/revoke`, {
      method: "POST",
      headers: { cookie: admin.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: "csrf=guess",
      redirect: "manual",
    });
    expect(forged.status).toBe(403);
    expect(await listedIds()).toEqual([id]);
    const revoked = await fetch(`${base}/admin/grants/${id}/revoke`, {
      method: "POST",
      headers: { cookie: admin.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${encodeURIComponent(admin.csrf)}`,
      redirect: "manual",
    });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe("/admin?notice=grant_revoked");
    expect(await listedIds()).toEqual([]);

    // Revoked: the same call asks again. Granted again, then revoked from the CLI.
    const third = await run();
    if (third.state !== "parked") throw new Error("a revoked grant must not allow");
    await approveAlways(third.requestId, third.runId);
    expect(await listedIds()).toEqual([id]);
    const byCli = await cli("approvals", "grants", "revoke", id!);
    expect(byCli).toMatchObject({ code: 0 });
    expect(byCli.out).toContain(`revoked ${id}`);
    const unknown = await cli("approvals", "grants", "revoke", id!);
    expect(unknown.code).not.toBe(0);
    expect(unknown.out).toContain("APPROVAL_GRANT_NOT_FOUND");
    const byApi = await api(`/api/approvals/grants/${id}/revoke`, { method: "POST" });
    expect(byApi.status).toBe(404);
    expect(await byApi.json()).toMatchObject({ error: "APPROVAL_GRANT_NOT_FOUND" });

    // Granted a third time and revoked over the API.
    const fourth = await run();
    if (fourth.state !== "parked") throw new Error("a revoked grant must not allow");
    await approveAlways(fourth.requestId, fourth.runId);
    const apiRevoke = await api(`/api/approvals/grants/${id}/revoke`, { method: "POST" });
    expect(apiRevoke.status).toBe(200);
    expect(await listedIds()).toEqual([]);

    // Expired: a grant made 7 days ago allows nothing and is no longer listed.
    const fifth = await run();
    if (fifth.state !== "parked") throw new Error("a revoked grant must not allow");
    await approveAlways(fifth.requestId, fifth.runId);
    const key = `${new ApprovalKeys(keyPrefix).base}always:exec`;
    const fields = await redis.hgetall(key);
    expect(Object.keys(fields)).toHaveLength(1);
    for (const [f, text] of Object.entries(fields)) {
      const aged = { ...JSON.parse(text), createdAt: Date.now() - 7 * 24 * 3600 * 1000 };
      await redis.hset(key, f, JSON.stringify(aged));
    }
    expect(await listedIds()).toEqual([]);
    expect((await run()).state).toBe("parked");

    // The audit trail: four grants, one use, three revocations (admin, CLI, API), each naming the grant.
    const trail = new AuditTrail({ redis, keyPrefix });
    const entries = [];
    for (const runId of [first.runId, third.runId, fourth.runId, fifth.runId]) {
      entries.push(...(await trail.readByTrace(`trace-${runId}`)), ...(await trail.readByTrace(runId)));
    }
    const grantEntries = entries
      .map((e) => e.entry)
      .filter((e) => e.kind === "decision" && e.detail?.allowAlways !== undefined)
      .map((e) => e as Extract<typeof e, { kind: "decision" }>);
    expect(grantEntries.filter((e) => e.detail?.allowAlways === "granted")).toHaveLength(4);
    const revokes = grantEntries.filter((e) => e.detail?.allowAlways === "revoked");
    expect(revokes.map((e) => e.approver)).toEqual(["olga", "olga", "olga"]);
    for (const e of grantEntries) expect(e.detail?.grantId).toBe(id);
    const uses = (await trail.readByTrace(`trace-${second.runId}`))
      .map((e) => e.entry)
      .filter((e) => e.kind === "decision" && e.step === 9);
    expect(uses).toEqual([
      expect.objectContaining({
        verdict: "allow",
        reason: expect.stringContaining(`allow-always grant ${id} by olga`),
      }),
    ]);
    expect(execs).toHaveLength(5);
  }, 120_000);
});
