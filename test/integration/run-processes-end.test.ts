import { spawn } from "node:child_process";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createPathFence } from "../../src/guard/index.js";
import { createLogger } from "../../src/logging/index.js";
import { MetricsKeys } from "../../src/metrics/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { processStartTime } from "../../src/proc/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startWorkerPart } from "../../src/runtime/index.js";
import { systemClock } from "../../src/shared/index.js";
import { createToolRegistry, ProcessRecords, ProcessSupervisor } from "../../src/tools/index.js";
import { createProcessTool } from "../../src/tools/process/process.js";
import { isAlive } from "../../src/tools/process/process-group.js";
import {
  fenceFactory,
  processToolOptions,
  silentLogger,
  tempWorkspace,
} from "../../src/tools/registry/builtin-tools.fixture.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * A run's processes end with it. A run that starts background processes with
 * the real `process` tool and finishes leaves none alive (they outlived their run before: nothing
 * called stopAllForRun), and the metric counts them; a worker that starts ends the groups a dead
 * worker recorded on its data dir.
 */

const redis = testRedisClient();
afterAll(() => redis.disconnect());

/** Pids from the `process` tool's "Started p1 (pid N)" results. */
function startedPids(outputs: readonly string[]): number[] {
  return outputs.flatMap((o) => [...o.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1])));
}

describe("a run's processes end with it", () => {
  it("stops the background processes of a completed run and counts them", async () => {
    const keyPrefix = uniquePrefix("run-procs");
    const dir = await mkdtemp(join(tmpdir(), "echo-run-procs-"));
    const workspace = await tempWorkspace();
    const script = [
      { tool_calls: [{ name: "process", arguments: { action: "start", command: "sleep 297" } }] },
      { tool_calls: [{ name: "process", arguments: { action: "start", command: "sleep 298 & sleep 299" } }] },
      { content: "done" },
    ];
    await writeFile(join(dir, "script.yaml"), stringify(script));
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
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    await events.waitUntilReady();
    const worker = await startWorkerPart(
      { config, logger, env: { PATH: "/usr/bin:/bin" }, redis, baseDir: dir, protectedPaths: [] },
      {
        registry: createToolRegistry([createProcessTool(options)]),
        releaseRun: (runId) => supervisor.stopAllForRun(runId),
        processCommand: (runId, id) => supervisor.backgroundCommand(runId, id),
        close: async () => undefined,
      },
    );
    try {
      const queue = agentQueue(redis, keyPrefix);
      const payload = testPayload({}, { workspace, maxSteps: 5 });
      await enqueueAgentRun(queue, payload);
      const outcome = await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 60_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "done" });
      const { Journal } = await import("../../src/journal/index.js");
      const records = (await new Journal({ redis, keyPrefix }).readRun(payload.runId)).records;
      const outputs = [...records.entries()]
        .filter(([key]) => !key.startsWith("model:"))
        .map(([, r]) => (r as { result: { output: string } }).result.output);
      const pids = startedPids(outputs);
      expect(pids).toHaveLength(2);
      // Both groups (and the backgrounded `sleep 298` inside the second) are gone once the run is.
      await expect.poll(() => pids.filter(isAlive)).toEqual([]);
      expect(supervisor.liveCount(payload.runId)).toBe(0);
      const reaped = await redis.hget(
        new MetricsKeys(keyPrefix).counter("processes_reaped"),
        '["run_ended"]',
      );
      expect(reaped).toBe("2");
    } finally {
      await worker.stop();
      await events.close();
      await supervisor.close();
    }
  });

  it("a worker that starts ends the process groups a dead worker recorded, and no other", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "echo-records-"));
    const recordsDir = join(dataDir, "processes");
    // A worker that dies: a real process whose pid and start time go into the records as owner.
    const deadOwner = spawn("/bin/sh", ["-c", "exit 0"]);
    const ownerPid = deadOwner.pid as number;
    const ownerStart = processStartTime(ownerPid) ?? "0";
    await new Promise((resolve) => deadOwner.once("exit", resolve));
    const orphan = spawn("/bin/sleep", ["296"], { detached: true, stdio: "ignore" });
    const orphanPid = orphan.pid as number;
    const record = (pgid: number, start: string, owner: number, oStart: string) =>
      JSON.stringify({ v: 1, runId: `run-${pgid}`, pgid, start, owner, ownerStart: oStart });
    new ProcessRecords(recordsDir);
    await writeFile(
      join(recordsDir, `${orphanPid}.json`),
      record(orphanPid, processStartTime(orphanPid) as string, ownerPid, ownerStart),
    );
    // A group of a live worker (this process): left alone.
    const kept = spawn("/bin/sleep", ["295"], { detached: true, stdio: "ignore" });
    const keptPid = kept.pid as number;
    await writeFile(
      join(recordsDir, `${keptPid}.json`),
      record(
        keptPid,
        processStartTime(keptPid) as string,
        process.pid,
        processStartTime(process.pid) as string,
      ),
    );
    // A record whose pid now belongs to another process (start time differs): never signalled.
    const reused = spawn("/bin/sleep", ["294"], { detached: true, stdio: "ignore" });
    const reusedPid = reused.pid as number;
    await writeFile(join(recordsDir, `${reusedPid}.json`), record(reusedPid, "1", ownerPid, ownerStart));
    await writeFile(join(recordsDir, "junk.json"), "{not json");
    try {
      const supervisor = new ProcessSupervisor({
        clock: systemClock,
        logger: silentLogger,
        reaper: false,
        exitHook: false,
        records: new ProcessRecords(recordsDir),
      });
      const report = supervisor.reapOrphans();
      expect(report).toEqual({ reaped: 1, runs: [`run-${orphanPid}`] });
      await expect.poll(() => isAlive(orphanPid)).toBe(false);
      expect(isAlive(keptPid)).toBe(true);
      expect(isAlive(reusedPid)).toBe(true);
      expect((await readdir(recordsDir)).sort()).toEqual([`${keptPid}.json`]);
    } finally {
      for (const child of [orphan, kept, reused]) child.kill("SIGKILL");
    }
  });
});
