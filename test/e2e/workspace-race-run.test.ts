import { mkdir, mkdtemp, readdir, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createPathFence } from "../../src/guard/index.js";
import { Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startWorkerPart } from "../../src/runtime/index.js";
import { Scheduler, ScheduleService, ScheduleStore, scheduledRunId } from "../../src/scheduler/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../../src/tools/builtin-runtime.js";
import { createListDirTool } from "../../src/tools/files/list-dir.js";
import { createReadFileTool } from "../../src/tools/files/read-file.js";
import { createSandboxHost, createToolRegistry } from "../../src/tools/index.js";
import { createProcessTool } from "../../src/tools/process/process.js";
import { isAlive } from "../../src/tools/process/process-group.js";
import {
  fenceFactory,
  processToolOptions,
  tempWorkspace,
  testSupervisor,
} from "../../src/tools/registry/builtin-tools.fixture.js";
import { agentQueue, testConfig } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
const supervisor = testSupervisor();
afterAll(async () => {
  redis.disconnect();
  await supervisor.close();
});

const MINUTE = 60_000;
const OUTSIDE_SECRET = "OUTSIDE-SECRET-run-7d2e";

/**
 * The workspace-swap attack as an outsider runs it: a cron-authorised scheduled run starts, with the real
 * `process` tool in the real sandbox, a script that swaps its workspace folder `d` with a link to a
 * folder outside (renameat2 RENAME_EXCHANGE, as fast as it can), then reads and lists `d` through
 * the real host-side file tools hundreds of times in batches, and ends. Nothing of the outside folder
 * reaches the journal, some calls were refused (the race really ran), and the flipper is gone once
 * the run completed (the run's processes end with it).
 */
describe("a scheduled run racing its own file tools", () => {
  it("reads nothing outside, and leaves no process behind", async () => {
    const keyPrefix = uniquePrefix("race-run");
    const dir = await mkdtemp(join(tmpdir(), "echo-race-run-"));
    const workspace = await tempWorkspace("race-run");
    const outside = await tempWorkspace("race-run-outside");
    await writeFile(join(outside, "secret.txt"), `${OUTSIDE_SECRET}\n`);
    await writeFile(join(outside, "outside-only"), "x\n");
    await mkdir(join(workspace, "d"));
    await writeFile(join(workspace, "d", "secret.txt"), "inside\n");
    await symlink(outside, join(workspace, "l"));
    // renameat2 is 316 on x86-64 (the CI machines); AT_FDCWD -100, RENAME_EXCHANGE 2.
    await writeFile(
      join(workspace, "flip.pl"),
      'print "flipping\\n"; while (1) { syscall(316, -100, $ARGV[0], -100, $ARGV[1], 2) }\n',
    );
    const reads = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? { name: "read_file", arguments: { path: "d/secret.txt" } }
        : { name: "list_dir", arguments: { path: "d" } },
    );
    const steps = [
      { tool_calls: [{ name: "process", arguments: { action: "start", command: "perl flip.pl d l" } }] },
      ...Array.from({ length: 10 }, () => ({ tool_calls: reads })),
      { content: "done" },
    ];
    await writeFile(join(dir, "script.yaml"), stringify(steps));
    const config = await testConfig(dir, {
      redis: { url: "redis://127.0.0.1:6379", key_prefix: keyPrefix },
      security: { profile: "personal_cli" },
      permissions: { elevated: { allow_from: { cron: ["ann"] } } },
      models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
      logging: { level: "silent", format: "json" },
    });
    const logger = createLogger({ level: "silent", format: "json" });
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
        agent: { model: "scripted", task: "race", maxSteps: steps.length + 2, workspace },
        owner: "ann",
        source: { kind: "cronjob" as const },
      },
      { approvalSource: "human", approver: "bob" },
    );
    const tick = start + MINUTE;
    const scheduler = new Scheduler({ store, agentQueue: queue, clock, lockLeaseMs: 60_000 });
    expect((await scheduler.runDue(tick)).results).toEqual({ fired: 1 });

    const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
    const options = {
      ...processToolOptions(fence, supervisor),
      execHost: "sandbox" as const,
      sandbox: createSandboxHost({ network: "deny" }),
    };
    const limits = DEFAULT_BUILTIN_LIMITS;
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    await events.waitUntilReady();
    const worker = await startWorkerPart(
      { config, logger, env: { PATH: "/usr/bin:/bin" }, redis, baseDir: dir, protectedPaths: [] },
      {
        registry: createToolRegistry([
          createProcessTool(options),
          createReadFileTool({ pathFence: fence, limits }),
          createListDirTool({ pathFence: fence, limits }),
        ]),
        releaseRun: (runId) => supervisor.stopAllForRun(runId),
        processCommand: (runId, id) => supervisor.backgroundCommand(runId, id),
        close: async () => undefined,
      },
    );
    try {
      const runId = scheduledRunId("nightly", tick);
      const outcome = await (await findRunJob(queue, runId))!.waitUntilFinished(events, 90_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "done" });
      const records = [...(await new Journal({ redis, keyPrefix }).readRun(runId)).records.entries()]
        .filter(([key]) => !key.startsWith("model:"))
        .map(([, r]) => (r as { result: { success: boolean; output: string; error?: string } }).result);
      const started = records.find((r) => r.success && r.output.includes("Started"));
      expect(started, JSON.stringify(records.slice(0, 3))).toBeDefined();
      const text = JSON.stringify(records);
      expect(text).not.toContain(OUTSIDE_SECRET);
      expect(text).not.toContain("outside-only");
      // The race really ran: some calls landed on the link and were refused, some read the folder.
      expect(records.some((r) => !r.success)).toBe(true);
      expect(records.some((r) => r.success && r.output.includes("inside"))).toBe(true);
      const pid = Number(/\(pid (\d+)\)/.exec(started?.output ?? "")?.[1]);
      await expect.poll(() => isAlive(pid)).toBe(false);
      expect((await readdir(outside)).sort()).toEqual(["outside-only", "secret.txt"]);
    } finally {
      await worker.stop();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 150_000);
});
