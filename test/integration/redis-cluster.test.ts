import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ApprovalStore } from "../../src/approvals/index.js";
import { APPROVAL_SCRIPTS } from "../../src/approvals/store/approval-scripts.js";
import { runDoctor } from "../../src/cli/commands/doctor/index.js";
import { bufferIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/run-cli.js";
import { AUDIT_APPEND_LUA, AUDIT_READ_TRACE_LUA } from "../../src/journal/audit-chain.js";
import { AuditTrail, Journal } from "../../src/journal/index.js";
import { JOURNAL_SCRIPTS } from "../../src/journal/journal-scripts.js";
import { type AgentQueue, enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import type { HistoryEntry } from "../../src/scheduler/index.js";
import { ScheduleStore } from "../../src/scheduler/schedule-store.js";
import { SCHEDULER_SCRIPTS } from "../../src/scheduler/store-scripts.js";
import { createSubagentTools } from "../../src/tools/index.js";
import {
  agentQueue,
  countExecutions,
  countingWriteTool,
  crashRunFiles,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import {
  chaosSeed,
  killHard,
  killLandedOnWork,
  prng,
  readyWorkerId,
  repeated,
  startNodeProcess,
  verifyChain,
  waitAllCompleted,
} from "../helpers/chaos.js";
import { REPO_ROOT, startCli } from "../helpers/cli-process.js";
import { type RecordedRequest, reply, startFakeChatServer } from "../helpers/fake-chat-server.js";
import { freePort } from "../helpers/free-port.js";
import {
  keySlot,
  monitorScripts,
  type RedisClusterProcess,
  type ScriptCall,
  startRedisCluster,
} from "../helpers/redis-cluster.js";
import { uniquePrefix } from "../helpers/test-redis.js";

/**
 * The runner unchanged on a three-master Redis Cluster (redis.cluster_nodes): `echo-runner start`
 * fires a config schedule and parks a run whose approval is decided by its link, `audit verify`
 * checks the chain; a worker process SIGKILLed mid-run is replayed from its journal; a sub-agent runs.
 * A multi-key command whose keys span slots fails here with CROSSSLOT, so every path these runs take
 * proves its keys share a slot.
 */

let cluster: RedisClusterProcess;
let redis: Cluster;
let scripts: { calls: ScriptCall[]; stop: () => void };

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  redis = cluster.client();
  scripts = await monitorScripts(cluster);
}, 60_000);

afterAll(async () => {
  scripts?.stop();
  redis?.disconnect();
  await cluster?.stop();
});

/** A key prefix without ":" (BullMQ's prefix `{…}` then reads well); unique per test. */
function clusterPrefix(label: string): string {
  return uniquePrefix(label).replace(/:/g, "-");
}

async function closeQueue(queue: AgentQueue): Promise<void> {
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
}

describe("Redis Cluster", () => {
  it("the cluster has three masters, each serving a share of the slots", async () => {
    const slots = (await redis.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
    expect(new Set(slots.map((s) => s[2][1])).size).toBe(3);
  });

  it("echo-runner start: a schedule fires, a parked run is approved by its link, audit verify passes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-cluster-"));
    // The workspace may not overlap the config dir (the sandbox host refuses it), and the sandbox's
    // uid must reach it when the tests run as root.
    const workspace = join(dir, "workspace");
    await mkdir(workspace);
    await chmod(dir, 0o755);
    const keyPrefix = clusterPrefix("cstart");
    await writeFile(
      join(dir, "script.yaml"),
      stringify([
        { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
        { content: "done" },
      ]),
    );
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const configPath = join(dir, "echo.yaml");
    await writeFile(
      configPath,
      stringify({
        redis: { key_prefix: keyPrefix, cluster_nodes: cluster.nodes },
        security: { profile: "personal_cli" },
        permissions: { elevated: { enabled: false } },
        approvers: [{ id: "approver", email: "approver@example.test" }],
        http: { port, public_url: publicUrl },
        logging: { level: "info", format: "json" },
        models: { scripted: { provider: "scripted", script: "script.yaml" } },
        agents: { nightly: { model: "scripted", task: "deploy", workspace } },
        schedules: [
          {
            id: "every-second",
            cron: "* * * * * *",
            timezone: "UTC",
            agent: "nightly",
            overlap: "skip",
            catch_up: "none",
            jitter_seconds: 0,
            enabled: true,
            owner: "ann",
            authorized: false,
          },
        ],
      }),
    );
    // No REDIS_URL: with cluster_nodes set, start must not run a local redis-server either.
    const env = { PATH: process.env.PATH, HOME: dir };
    const cli = startCli(["start", "--config", configPath], { cwd: dir, env });
    const queue = agentQueue(redis, keyPrefix);
    try {
      await cli.waitForOutput(/echo-runner is running/, 30_000);
      expect(cli.output()).not.toContain("started a local redis-server");

      // The scheduler fires into a run; unattended, its exec is denied and the run still finishes.
      const findScheduled = async () =>
        (await queue.getJobs(["completed"])).find((j) => j.data.origin.kind === "schedule");
      await expect.poll(findScheduled, { timeout: 20_000, interval: 200 }).toBeDefined();
      expect((await findScheduled())?.returnvalue).toMatchObject({
        status: "completed",
        finalAnswer: "done",
      });

      // An attended run parks on its exec call; the printed mail carries the approver's link.
      const payload = testPayload({}, { workspace });
      await enqueueAgentRun(queue, payload);
      const linkPattern = new RegExp(`${publicUrl}/approvals/([A-Za-z0-9_-]+)\\?t=([A-Za-z0-9_-]{43})`);
      await cli.waitForOutput(linkPattern, 20_000);
      const [link, approvalId, token] = linkPattern.exec(cli.output()) ?? [];
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 10_000 })
        .toBe("delayed");
      const page = await fetch(link!);
      expect(page.status).toBe(200);
      const nonce = /name="nonce" value="([^"]+)"/.exec(await page.text())?.[1];
      expect(nonce, "the approval page carries a form nonce").toBeDefined();
      const decided = await fetch(`${publicUrl}/approvals/${approvalId}/decision`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ t: token!, nonce: nonce!, decision: "approve", comment: "on a cluster" }),
        redirect: "manual",
      });
      expect(decided.status).toBeLessThan(400);
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 20_000 })
        .toBe("completed");
      const entries = await new AuditTrail({ redis, keyPrefix }).readByTrace(payload.traceId);
      expect(entries.map((e) => e.entry)).toContainEqual(
        expect.objectContaining({ kind: "decision", tool: "exec", verdict: "ask" }),
      );
      expect(JSON.stringify(entries)).toContain("approver");

      // The chain over every entry (both runs, all masters' view of one slot) verifies, by library and CLI.
      expect(await verifyChain(redis, keyPrefix)).toBeGreaterThan(2);
      const verify = bufferIo("", { ...env }, dir);
      expect(await runCli(["audit", "verify", "--config", configPath], verify.io), verify.stderr()).toBe(0);
    } finally {
      cli.child.kill("SIGTERM");
      expect(await cli.exited).toBe(0);
      expect(cli.output()).toContain("stopped cleanly");
      await closeQueue(queue);
    }
  }, 90_000);

  it("doctor checks every seed node of the cluster as the Redis it is", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-cluster-doctor-"));
    const configPath = join(dir, "echo.yaml");
    await writeFile(configPath, stringify({ redis: { cluster_nodes: cluster.nodes } }));
    const report = await runDoctor({ configPath, env: { HOME: dir }, cwd: dir, timeoutMs: 5_000 });
    const reachable = report.checks.filter((c) => c.name === "redis");
    expect(reachable.map((c) => c.status)).toEqual(["ok", "ok", "ok"]);
    for (const port of cluster.ports) expect(JSON.stringify(reachable)).toContain(`127.0.0.1:${port}`);
    const redisChecks = report.checks.filter((c) => c.name.startsWith("redis"));
    expect(redisChecks.filter((c) => c.status === "fail")).toEqual([]);
  });

  it("journal replay: runs finish after worker processes are SIGKILLed mid-run, no call twice", async () => {
    const seed = chaosSeed("cluster-crash");
    const random = prng(seed);
    const keyPrefix = clusterPrefix("ccrash");
    const { counter, env: files } = await crashRunFiles(writeScript(12, "survived"));
    const env = {
      CLUSTER_NODES: cluster.nodes.join(","),
      KEY_PREFIX: keyPrefix,
      ...files,
      TOOL_DELAY_MS: "20",
      CLAIM_LEASE_MS: "900",
      LOCK_MS: "900",
    };
    const queue = agentQueue(redis, keyPrefix);
    const payloads = [testPayload(), testPayload()];
    for (const p of payloads) await enqueueAgentRun(queue, p);
    try {
      let landed = 0;
      for (let kill = 0; kill < 4 || landed === 0; kill++) {
        if (kill >= 10) break;
        const worker = startNodeProcess("test/helpers/agent-worker-main.ts", env);
        await worker.ready;
        await new Promise((r) => setTimeout(r, 150 + Math.floor(random() * 200)));
        await killHard(worker.child);
        if (await killLandedOnWork(redis, queue, readyWorkerId(worker.output()))) landed++;
      }
      expect(landed, `kills that hit a run in progress (seed ${seed})`).toBeGreaterThan(0);
      const final = startNodeProcess("test/helpers/agent-worker-main.ts", env);
      await final.ready;
      try {
        await waitAllCompleted(
          queue,
          payloads.map((p) => p.runId),
          60_000,
        );
      } finally {
        await killHard(final.child);
      }
      const counts = await countExecutions(counter);
      expect(repeated(counts), `side effects run twice (seed ${seed})`).toEqual([]);
      const journal = new Journal({ redis, keyPrefix });
      for (const p of payloads) {
        const snapshot = await journal.readRun(p.runId);
        for (const [key, record] of snapshot.records) {
          if (key.startsWith("model:") || record.status !== "completed") continue;
          const result = record.result as { success: boolean; errorKind?: string };
          if (result.success) expect(counts.get(key), `call ${key} (seed ${seed})`).toBe(1);
          else expect(result.errorKind).toBe("in_doubt");
        }
        expect((await findRunJob(queue, p.runId))?.returnvalue).toMatchObject({ finalAnswer: "survived" });
      }
      expect(await verifyChain(redis, keyPrefix)).toBeGreaterThan(0);
    } finally {
      await closeQueue(queue);
    }
  }, 120_000);

  it("sub-agents: delegate_task parks the parent, runs the child and returns its answer", async () => {
    const keyPrefix = clusterPrefix("csub");
    const counter = join(await mkdtemp(join(tmpdir(), "echo-cluster-sub-")), "c.txt");
    const server = await startFakeChatServer((request: RecordedRequest) => {
      const messages = (request.body as { messages: { role: string; content?: string | null }[] }).messages;
      const task = messages.find((m) => m.role === "user")?.content ?? "";
      const turns = messages.filter((m) => m.role === "assistant").length;
      const lastTool = [...messages].reverse().find((m) => m.role === "tool")?.content ?? "";
      if (task === "child: write")
        return turns === 0
          ? reply.toolCalls([{ name: "write_file", arguments: { path: "c.txt", content: "from child" } }])
          : reply.content("child says hi");
      return turns === 0
        ? reply.toolCalls([
            { name: "delegate_task", arguments: { task: "child: write", allowed_tools: ["write_file"] } },
          ])
        : reply.content(`parent got: ${lastTool}`);
    });
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [countingWriteTool(counter), ...createSubagentTools()],
      script: "- content: unused\n",
      env: { FAKE_KEY: "sk-test-000000" },
      configOverrides: {
        models: {
          scripted: { provider: "openai", base_url: server.baseUrl, model: "m", api_key_env: "FAKE_KEY" },
        },
        permissions: { approval: { mode: "off", auto_approve: ["delegate_task"] } },
      },
    });
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({
      connection: redis,
      keyPrefix,
      concurrency: 1,
      deps: { ...deps, childRecheckMs: 60_000 },
    });
    try {
      const parent = testPayload({}, { task: "parent: delegate" });
      await enqueueAgentRun(queue, parent);
      const outcome = await (await findRunJob(queue, parent.runId))!.waitUntilFinished(events, 30_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "parent got: child says hi" });
      expect([...(await countExecutions(counter)).values()]).toEqual([1]);
      const children = (await queue.getJobs(["completed"])).filter(
        (j) => j.data.parentExecutionId === parent.runId,
      );
      expect(children).toHaveLength(1);
      expect(await verifyChain(redis, keyPrefix)).toBeGreaterThan(0);
    } finally {
      await worker.close();
      await events.close();
      await closeQueue(queue);
      await server.close();
    }
  }, 60_000);
});

/**
 * Every Lua script of the runner, by registry: how many keys it takes (null = a variable count) and
 * its SHA1 (what EVALSHA names it by).
 */
const SCRIPT_REGISTRY: { name: string; keys: number | null; sha: string }[] = [
  ...Object.entries(JOURNAL_SCRIPTS).map(([name, s]) => ({ name, keys: s.numberOfKeys ?? null, lua: s.lua })),
  ...Object.entries(APPROVAL_SCRIPTS).map(([name, s]) => ({ name, keys: s.keys, lua: s.lua })),
  ...Object.entries(SCHEDULER_SCRIPTS).map(([name, s]) => ({ name, keys: s.keys, lua: s.lua })),
  { name: "echoAuditAppend", keys: null, lua: AUDIT_APPEND_LUA },
  { name: "echoAuditReadTrace", keys: 3, lua: AUDIT_READ_TRACE_LUA },
].map(({ name, keys, lua }) => ({ name, keys, sha: createHash("sha1").update(lua).digest("hex") }));

/**
 * The files that run Lua (defineCommand, eval) and where their scripts are: a registry above, or an
 * inline EVAL whose keys are named here. A new script site fails the enumeration until it is listed.
 */
const SCRIPT_SITES: Record<string, string> = {
  "src/journal/journal.ts": "JOURNAL_SCRIPTS (one key each: {run:<id>}:journal)",
  "src/journal/audit-trail.ts": "AUDIT_APPEND_LUA, AUDIT_READ_TRACE_LUA ({audit} keys)",
  "src/approvals/store/approval-store.ts": "APPROVAL_SCRIPTS",
  "src/scheduler/schedule-store.ts": "SCHEDULER_SCRIPTS",
  "src/metrics/recorder.ts":
    "inline COUNT_ONCE, COUNT_DECISION_ONCE, COUNT_USAGE_ONCE: {metrics}:seen:*, {metrics}:c:<family>",
  "src/metrics/approval-wait.ts": "inline FOLD: {metrics}:h:approval_wait, {metrics}:approval_wait_cursor",
  "src/queue/children.ts": "inline UPDATE_QUEUED: five keys of the {prefix} BullMQ queue",
  "src/queue/run-cancel.ts": "inline CANCEL_QUEUED: ten keys of the {prefix} BullMQ queue (one hash tag)",
  "src/tools/memory/memory.ts": "inline WRITE: one key",
  "src/tools/sessions/session-archive.ts":
    "RECORD_LUA: the run's archived value and the user's run set, both under the user's {user:<id>} hash tag (its own cluster test in session-archive.test.ts)",
  "src/approvals/notify/digest-store.ts": "inline JOIN, CLAIM_DUE, REMOVE: {approvals} keys",
  "src/http/failure-throttle.ts": "inline BLOCKED, COUNT: {http} keys",
  "src/agent/budget/usage-index.ts":
    "inline JOIN_SET: one key ({trace:<id>}:runs or {sched:<id>}:runs:<day>)",
};

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(REPO_ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !/\.(test|fixture)\.ts$/.test(e.name))
    .map((e) =>
      join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(REPO_ROOT.length + 1),
    );
}

describe("every Lua script keeps its keys in one hash slot", () => {
  it("the script sites in src/ and workers/ are exactly the enumerated ones", async () => {
    const sites: string[] = [];
    for (const file of [...(await filesUnder("src")), ...(await filesUnder("workers"))]) {
      const text = await readFile(join(REPO_ROOT, file), "utf8");
      if (/\.defineCommand\(|\.eval\(|\.evalsha\(|\.call\(\s*["'](eval|evalsha|fcall)/i.test(text))
        sites.push(file);
    }
    expect(sites.sort()).toEqual(Object.keys(SCRIPT_SITES).sort());
  });

  it("the scripts no scenario above reaches run through their stores on the cluster too", async () => {
    const keyPrefix = clusterPrefix("cscripts");
    const schedules = new ScheduleStore({ redis, keyPrefix });
    expect(await schedules.delete("no-such-schedule")).toBe(false);
    const entry = { at: Date.now(), tick: 1, outcome: "queued" } as unknown as HistoryEntry;
    expect(await schedules.releaseQueued("no-such-schedule", 1, "run-x", entry)).toBe(false);
    const approvals = new ApprovalStore({
      redis,
      keyPrefix,
      policy: { waitTimeoutMs: 60_000, approvers: [{ id: "alice", email: null }] },
    });
    await approvals.markReminded("apr-none");
  });

  it("every script call the cluster ran above had its keys in one slot, and every multi-key script ran", async () => {
    // MONITOR lines arrive a moment after the commands: wait (bounded) until the last ones are in.
    const multiKey = SCRIPT_REGISTRY.filter((s) => s.keys === null || s.keys > 1);
    const notRun = () => {
      const seen = new Set(scripts.calls.map((c) => c.sha));
      return multiKey.filter((s) => !seen.has(s.sha)).map((s) => s.name);
    };
    await expect
      .poll(notRun, { timeout: 5_000, message: "multi-key scripts no scenario ran (add one)" })
      .toEqual([]);
    const calls = scripts.calls;
    expect(calls.length, "MONITOR saw script calls").toBeGreaterThan(100);
    const crossSlot = calls.filter((c) => new Set(c.keys.map(keySlot)).size > 1);
    expect(crossSlot, "calls whose keys span slots").toEqual([]);
    // A one-key script is in one slot by construction; its keys were checked above when it ran.
    for (const s of SCRIPT_REGISTRY.filter((r) => r.keys !== null && r.keys <= 1)) expect(s.keys).toBe(1);
    const inlineRun = calls.filter((c) => !SCRIPT_REGISTRY.some((s) => s.sha === c.sha));
    expect(inlineRun.length, "inline EVAL scripts (BullMQ's, metrics) ran").toBeGreaterThan(0);
    // The slot helper agrees with the cluster: a key's slot is the one CLUSTER KEYSLOT reports.
    for (const key of ["echo:{run:r-1}:journal", "{echo}:agent:wait", "plain-key", "a{}b"])
      expect(keySlot(key)).toBe(Number(await redis.call("CLUSTER", "KEYSLOT", key)));
  });
});
