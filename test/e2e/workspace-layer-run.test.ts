import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ApprovalStore } from "../../src/approvals/index.js";
import { bufferIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/run-cli.js";
import type { EchoRunnerConfig } from "../../src/config/index.js";
import { Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { approvalPolicyFromConfig, startWorkerPart, toolRegistryFor } from "../../src/runtime/index.js";
import { Scheduler, ScheduleService, ScheduleStore, scheduledRunId } from "../../src/scheduler/index.js";
import { type DeepReadonly, ManualClock } from "../../src/shared/index.js";
import { RunLayers } from "../../src/tools/index.js";
import { isAlive } from "../../src/tools/process/process-group.js";
import { agentQueue, testConfig } from "../helpers/agent-harness.js";
import { testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

const MINUTE = 60_000;
const OUTSIDE_SECRET = "OUTSIDE-SECRET-layer-4c1a";

/** A tree as text: every path with its kind and content (or link target). */
async function snapshot(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(join(dir, rel), { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) out.push(`${path}/`, ...(await snapshot(dir, path)));
    else if (entry.isSymbolicLink()) out.push(`${path} -> link`);
    else out.push(`${path}: ${(await readFile(join(dir, path))).toString("base64")}`);
  }
  return out;
}

function git(workspace: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "safe.directory=*", "-C", workspace, ...args], { encoding: "utf8" });
}

async function gitWorkspace(name: string): Promise<string> {
  const workspace = await mkdtemp(join(tmpdir(), `echo-layer-${name}-`));
  await mkdir(join(workspace, "src"));
  for (let i = 0; i < 30; i++) await writeFile(join(workspace, "src", `m${i}.py`), `print(${i})\n`);
  await writeFile(join(workspace, "notes.md"), "# notes\nfirst line\n");
  git(workspace, "init", "-q", "-b", "main");
  git(workspace, "add", ".");
  git(workspace, "-c", "user.email=a@example.test", "-c", "user.name=a", "commit", "-q", "-m", "init");
  return workspace;
}

interface Setup {
  config: DeepReadonly<EchoRunnerConfig>;
  configPath: string;
  keyPrefix: string;
  dataDir: string;
}

async function setup(
  name: string,
  workspace: string,
  steps: unknown[],
  execution: Record<string, unknown> = {},
): Promise<Setup & { runId: string }> {
  const keyPrefix = uniquePrefix(`layer-${name}`);
  const dir = await mkdtemp(join(tmpdir(), `echo-layer-run-${name}-`));
  await writeFile(join(dir, "script.yaml"), stringify(steps));
  const config = await testConfig(dir, {
    redis: { url: "redis://127.0.0.1:6379", key_prefix: keyPrefix },
    security: { profile: "personal_cli" },
    permissions: { elevated: { allow_from: { cron: ["ann"] } } },
    tools: { exec: { host: "sandbox" } },
    execution: { network_policy: "deny", workspace_layer: "required", ...execution },
    approvers: [{ id: "ann", email: "ann@example.test" }],
    models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
    logging: { level: "silent", format: "json" },
  });
  const start = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE;
  const clock = new ManualClock(start);
  const store = new ScheduleStore({ redis, keyPrefix });
  const queue = agentQueue(redis, keyPrefix);
  await new ScheduleService({ store, agentQueue: queue, clock }).create(
    {
      v: 1 as const,
      id: "nightly",
      cron: "* * * * *",
      timezone: "UTC",
      agent: { model: "scripted", task: name, maxSteps: steps.length + 2, workspace },
      owner: "ann",
      source: { kind: "cronjob" as const },
    },
    { approvalSource: "human", approver: "bob" },
  );
  const tick = start + MINUTE;
  const scheduler = new Scheduler({ store, agentQueue: queue, clock, lockLeaseMs: 60_000 });
  expect((await scheduler.runDue(tick)).results).toEqual({ fired: 1 });
  await queue.close();
  return {
    config,
    configPath: join(dir, "echo.yaml"),
    keyPrefix,
    dataDir: join(dir, "data"),
    runId: scheduledRunId("nightly", tick),
  };
}

async function withWorker<T>(s: Setup, use: () => Promise<T>): Promise<T> {
  const logger = createLogger({ level: "silent", format: "json" });
  const ctx = {
    config: s.config,
    logger,
    env: { PATH: "/usr/bin:/bin" },
    redis,
    baseDir: s.dataDir,
    protectedPaths: [s.dataDir],
    dataDir: s.dataDir,
  };
  const tools = await toolRegistryFor(ctx);
  expect(tools.layers?.kind).toBe("on");
  const worker = await startWorkerPart(ctx, tools);
  try {
    return await use();
  } finally {
    await worker.stop();
    await tools.close();
  }
}

async function results(keyPrefix: string, runId: string) {
  return [...(await new Journal({ redis, keyPrefix }).readRun(runId)).records.entries()]
    .filter(([key]) => !key.startsWith("model:"))
    .map(([, r]) => (r as { result: { success: boolean; output: string; error?: string } }).result);
}

/**
 * The workspace layer's promise, end to end through the worker's own tool set: an unattended cron run in
 * the real sandbox races the file tools with a flipper, wipes its workspace with `python3 -c`,
 * plants a git hook, rewrites a branch ref and leaves a background process; it parks for a person
 * before anything lands, the person denies, and the run completes with nothing read or written
 * outside, its workspace and history as they were, and none of its processes alive. An ordinary
 * run's writes, edits and `tar` output land by themselves and it completes.
 */
describe("a run on its workspace layer", () => {
  it("keeps a hostile run's wipe, hook and history rewrite out of the workspace until a person decides", async () => {
    const workspace = await gitWorkspace("hostile");
    const outside = await mkdtemp(join(tmpdir(), "echo-layer-outside-"));
    await writeFile(join(outside, "secret.txt"), `${OUTSIDE_SECRET}\n`);
    await mkdir(join(workspace, "d"));
    await writeFile(join(workspace, "d", "secret.txt"), "inside\n");
    await symlink(outside, join(workspace, "l"));
    await writeFile(
      join(workspace, "flip.pl"),
      'print "flipping\\n"; while (1) { syscall(316, -100, $ARGV[0], -100, $ARGV[1], 2) }\n',
    );
    git(workspace, "add", ".");
    git(workspace, "-c", "user.email=a@example.test", "-c", "user.name=a", "commit", "-q", "-m", "race kit");
    const before = await snapshot(workspace);
    const head = git(workspace, "rev-parse", "HEAD");
    const reads = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? { name: "read_file", arguments: { path: "d/secret.txt" } }
        : { name: "list_dir", arguments: { path: "d" } },
    );
    const wipe =
      "import os, shutil\nfor p in os.listdir('.'):\n    if p == '.git': continue\n    shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)\n";
    const hook =
      "import os\nos.makedirs('.git/hooks', exist_ok=True)\nopen('.git/hooks/pre-commit','w').write('#!/bin/sh\\necho pwned\\n')\nos.chmod('.git/hooks/pre-commit', 0o755)\nopen('.git/refs/heads/main','w').write('0'*40+'\\n')\n";
    const steps = [
      { tool_calls: [{ name: "process", arguments: { action: "start", command: "perl flip.pl d l" } }] },
      ...Array.from({ length: 5 }, () => ({ tool_calls: reads })),
      { tool_calls: [{ name: "process", arguments: { action: "start", command: "sleep 297" } }] },
      { tool_calls: [{ name: "execute_code", arguments: { language: "python3", code: wipe } }] },
      { tool_calls: [{ name: "execute_code", arguments: { language: "python3", code: hook } }] },
      { content: "done" },
    ];
    const s = await setup("hostile", workspace, steps);
    const approvals = new ApprovalStore({
      redis,
      keyPrefix: s.keyPrefix,
      policy: approvalPolicyFromConfig(s.config),
    });
    const queue = agentQueue(redis, s.keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), s.keyPrefix, { lastEventId: "0-0" });
    await events.waitUntilReady();
    try {
      await withWorker(s, async () => {
        // The run parks on its landing: a person must look at this change set.
        const job = await findRunJob(queue, s.runId);
        await expect
          .poll(
            async () => {
              const pending = (await approvals.list({ status: "pending" })).map((r) => r.tool);
              const state = await job?.getState();
              if (state === "failed" || state === "completed")
                return {
                  state,
                  reason: (await findRunJob(queue, s.runId))?.failedReason,
                  records: await results(s.keyPrefix, s.runId),
                };
              return pending;
            },
            { timeout: 90_000, interval: 250 },
          )
          .toEqual(["workspace_landing"]);
        const [request] = await approvals.list({ status: "pending" });
        const shown = request?.argsCanonical ?? "";
        expect(shown).toContain(".git/hooks/pre-commit");
        expect(shown).toContain("D src");
        // Nothing landed while it waits.
        expect(await snapshot(workspace)).toEqual(before);
        await approvals.decide({
          id: request!.id,
          actor: { kind: "operator", id: "olga", via: "cli" },
          decision: "deny",
        });
        const outcome = await (await findRunJob(queue, s.runId))!.waitUntilFinished(events, 90_000);
        expect(outcome).toMatchObject({ status: "completed", landing: { state: "kept" } });
      });
      const records = await results(s.keyPrefix, s.runId);
      const text = JSON.stringify(records);
      expect(text).not.toContain(OUTSIDE_SECRET);
      expect(records.some((r) => r.success && r.output.includes("inside"))).toBe(true);
      // Every call ran and succeeded: the wipe and the hook too (in the layer).
      expect(records.filter((r) => !r.success)).toEqual([]);
      expect(records).toHaveLength(1 + 5 * reads.length + 1 + 2);
      // The workspace, its history and its hooks are as they were; outside is untouched.
      expect(await snapshot(workspace)).toEqual(before);
      expect(git(workspace, "rev-parse", "HEAD")).toBe(head);
      expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
      // None of the run's processes is alive.
      for (const started of records.filter((r) => r.success && /\(pid (\d+)\)/.test(r.output))) {
        const pid = Number(/\(pid (\d+)\)/.exec(started.output)?.[1]);
        await expect.poll(() => isAlive(pid)).toBe(false);
      }
      // `jobs show` says what became of the workspace.
      const shown = bufferIo("", { REDIS_URL: testRedisUrl(), HOME: s.dataDir }, s.dataDir);
      expect(await runCli(["jobs", "show", s.runId, "--config", s.configPath], shown.io)).toBe(0);
      expect(shown.stdout()).toMatch(/Workspace: \d+ change\(s\) kept, not landed \(echo-runner runs diff/);
      // The layer is kept for the operator, found by the run's id.
      const kept = await new RunLayers({ dir: join(s.dataDir, "layers") }).find(s.runId);
      expect(kept?.state).toBe("kept");
    } finally {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 240_000);

  it("lands an ordinary run's writes, edits and tar output by itself", async () => {
    const workspace = await gitWorkspace("ordinary");
    const steps = [
      {
        tool_calls: [{ name: "write_file", arguments: { path: "report/summary.md", content: "all good\n" } }],
      },
      {
        tool_calls: [
          {
            name: "edit_file",
            arguments: { path: "notes.md", old_string: "first line", new_string: "edited line" },
          },
        ],
      },
      { tool_calls: [{ name: "exec", arguments: { command: "tar -czf out.tgz src && echo packed" } }] },
      { content: "done" },
    ];
    const s = await setup("ordinary", workspace, steps);
    const queue = agentQueue(redis, s.keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), s.keyPrefix, { lastEventId: "0-0" });
    await events.waitUntilReady();
    try {
      await withWorker(s, async () => {
        const outcome = await (await findRunJob(queue, s.runId))!.waitUntilFinished(events, 90_000);
        expect(outcome, JSON.stringify(await results(s.keyPrefix, s.runId))).toMatchObject({
          status: "completed",
          landing: { state: "landed" },
        });
      });
      expect(await readFile(join(workspace, "report", "summary.md"), "utf8")).toBe("all good\n");
      expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("# notes\nedited line\n");
      const listed = execFileSync("tar", ["-tzf", join(workspace, "out.tgz")], { encoding: "utf8" });
      expect(listed).toContain("src/m29.py");
    } finally {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 180_000);

  it("fails the call that leaves the layer over execution.disk_mb, and the run goes on", async () => {
    const workspace = await gitWorkspace("quota");
    const steps = [
      { tool_calls: [{ name: "exec", arguments: { command: "head -c 3000000 /dev/zero > big.bin" } }] },
      { tool_calls: [{ name: "exec", arguments: { command: "rm big.bin && echo small > small.txt" } }] },
      { content: "done" },
    ];
    const s = await setup("quota", workspace, steps, { disk_mb: 1 });
    const queue = agentQueue(redis, s.keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), s.keyPrefix, { lastEventId: "0-0" });
    await events.waitUntilReady();
    try {
      await withWorker(s, async () => {
        const outcome = await (await findRunJob(queue, s.runId))!.waitUntilFinished(events, 90_000);
        expect(outcome).toMatchObject({ status: "completed", landing: { state: "landed" } });
      });
      // The journal's records come in no particular order: the big write failed, the clean-up not.
      const calls = await results(s.keyPrefix, s.runId);
      expect(calls).toHaveLength(2);
      const failed = calls.filter((r) => !r.success);
      expect(failed).toHaveLength(1);
      expect(failed[0]?.error).toContain("execution.disk_mb");
      expect(await readFile(join(workspace, "small.txt"), "utf8")).toBe("small\n");
      expect((await readdir(workspace)).includes("big.bin")).toBe(false);
    } finally {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 180_000);
});
