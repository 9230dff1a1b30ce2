import { execFileSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { RunOperations } from "../../src/agent/index.js";
import { ApprovalStore } from "../../src/approvals/index.js";
import { createPathFence } from "../../src/guard/index.js";
import { Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { enqueueAgentRun, findRunJob } from "../../src/queue/index.js";
import { RunInspector } from "../../src/runs/index.js";
import { startWorkerPart } from "../../src/runtime/index.js";
import { systemClock } from "../../src/shared/index.js";
import { createToolRegistry, ProcessSupervisor } from "../../src/tools/index.js";
import { createExecTool } from "../../src/tools/process/exec.js";
import { createProcessTool } from "../../src/tools/process/process.js";
import { isAlive } from "../../src/tools/process/process-group.js";
import {
  fenceFactory,
  processToolOptions,
  silentLogger,
  tempWorkspace,
} from "../../src/tools/registry/builtin-tools.fixture.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Cancelling a run while a tool call of it runs, through the worker as `echo-runner worker` wires
 * it, with the real `process` and `exec` tools: the foreground command's process tree is stopped at
 * once (not at its timeout), the run's background process is reaped, the run ends cancelled, and
 * the interrupted call is not recorded as done (a retry finds it in doubt, never "completed").
 */

const redis = testRedisClient();
const keyPrefix = uniquePrefix("cancel-running");
afterAll(async () => {
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

/** Pids of processes whose command line contains `text` (pgrep -f). */
function pidsOf(text: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", text], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe("cancelling a running run", () => {
  it("stops the in-flight call's process tree and the run's background processes, and ends it cancelled", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-cancel-running-"));
    const workspace = await tempWorkspace();
    const background = `sleep 2931${process.pid % 10}`;
    const foreground = `sleep 2932${process.pid % 10}`;
    await writeFile(
      join(dir, "script.yaml"),
      stringify([
        { tool_calls: [{ name: "process", arguments: { action: "start", command: background } }] },
        {
          tool_calls: [
            {
              name: "exec",
              arguments: { command: `${foreground}; echo after`, timeout_seconds: 600 },
            },
          ],
        },
        { content: "done" },
      ]),
    );
    const config = await testConfig(dir, {
      redis: { url: "redis://127.0.0.1:6379", key_prefix: keyPrefix },
      security: { profile: "personal_cli" },
      tools: { exec: { host: "local", security: "full", ask: "off" } },
      permissions: {
        elevated: { allow_from: { api: ["ann"] } },
        approval: { mode: "off", trusted_channels: ["api"] },
      },
      models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
      logging: { level: "silent", format: "json" },
    });
    const logger = createLogger({ level: "silent", format: "json" });
    const supervisor = new ProcessSupervisor({ clock: systemClock, logger: silentLogger, killGraceMs: 300 });
    const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
    const options = processToolOptions(fence, supervisor);
    const worker = await startWorkerPart(
      { config, logger, env: { PATH: "/usr/bin:/bin" }, redis, baseDir: dir, protectedPaths: [] },
      {
        registry: createToolRegistry([createProcessTool(options), createExecTool(options)]),
        releaseRun: (runId) => supervisor.stopAllForRun(runId),
        processCommand: (runId, id) => supervisor.backgroundCommand(runId, id),
        close: async () => undefined,
      },
    );
    const approvals = new ApprovalStore({
      redis,
      keyPrefix,
      policy: { waitTimeoutMs: 60_000, approvers: [] },
    });
    const operations = new RunOperations({ redis, keyPrefix, approvals });
    const inspector = new RunInspector({ redis, keyPrefix, approvals });
    const queue = agentQueue(redis, keyPrefix);
    try {
      const payload = testPayload({}, { workspace, maxSteps: 5 });
      await enqueueAgentRun(queue, payload);
      await expect.poll(() => pidsOf(foreground).length, { timeout: 20_000 }).toBeGreaterThan(0);
      const inFlight = [...pidsOf(foreground), ...pidsOf(background)];
      expect(await (await findRunJob(queue, payload.runId))?.getState()).toBe("active");

      const started = Date.now();
      const result = await operations.cancel(payload.runId, { id: "olga", via: "cli" }, "runaway");
      expect(result).toMatchObject({ status: "cancelling", from: "active" });
      expect(await operations.waitUntilEnded(payload.runId, 15_000)).toBe("failed");
      expect(Date.now() - started).toBeLessThan(10_000);

      await expect.poll(() => inFlight.filter(isAlive), { timeout: 5_000 }).toEqual([]);
      expect(supervisor.liveCount(payload.runId)).toBe(0);
      const detail = await inspector.showRun(payload.runId);
      expect(detail.run?.outcome).toBe("cancelled");
      expect(detail.run?.detail).toBe("RUN_CANCELLED: cancelled by olga (via cli): runaway");
      // The exec call was interrupted: its claim is open (in doubt for a retry), never "completed".
      const records = (await new Journal({ redis, keyPrefix }).readRun(payload.runId)).records;
      const execEntry = detail.journal.find((j) => j.tool === "exec");
      expect(execEntry?.status).not.toBe("completed");
      expect([...records.keys()].some((k) => k.startsWith("cancel:"))).toBe(true);
      expect(detail.operatorActions.map((a) => [a.action, a.by])).toEqual([["cancel", "olga"]]);
    } finally {
      await worker.stop();
      await inspector.close();
      await operations.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await supervisor.close();
    }
  }, 60_000);
});
