import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { AuditTrail, Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startWorkerPart } from "../../src/runtime/index.js";
import { Scheduler, ScheduleService, ScheduleStore, scheduledRunId } from "../../src/scheduler/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { agentQueue, countExecutions, countingWriteTool, testConfig } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

const MINUTE = 60_000;

/**
 * "With unattended_policy deny, a run of an unauthorised schedule is denied a write call
 * that an authorised schedule's run performs", end to end: two schedules with the same agent spec,
 * one created by a person-approved cronjob call (grant) and one without; the scheduler fires one
 * tick of each into the agent queue; the real worker part (grant checked when each run starts)
 * runs both with a scripted model that makes one write_file call.
 */
describe("cron authorisation, end to end", () => {
  it("under unattended_policy deny, the authorised schedule's run writes and the unauthorised one's is denied", async () => {
    const keyPrefix = uniquePrefix("cron-auth");
    const dir = await mkdtemp(join(tmpdir(), "echo-cron-auth-"));
    const workspace = await mkdtemp(join(tmpdir(), "echo-cron-ws-"));
    const counter = join(dir, "counter.txt");
    await writeFile(
      join(dir, "script.yaml"),
      stringify([
        { tool_calls: [{ name: "write_file", arguments: { path: "report.txt", content: "nightly" } }] },
        { content: "done" },
      ]),
    );
    const config = await testConfig(dir, {
      redis: { url: "redis://127.0.0.1:6379", key_prefix: keyPrefix },
      security: { profile: "daemon" },
      execution: { network_policy: "allow", in_doubt_policy: "fail", worker_concurrency: 2 },
      permissions: { approval: { unattended_policy: "deny" } },
      models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
      logging: { level: "silent", format: "json" },
    });
    const logger = createLogger({ level: "silent", format: "json" });

    // Both schedules: every minute, same agent; only the grant differs.
    const start = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE;
    const clock = new ManualClock(start);
    const store = new ScheduleStore({ redis, keyPrefix });
    const queue = agentQueue(redis, keyPrefix);
    const service = new ScheduleService({ store, agentQueue: queue, clock });
    const spec = (id: string) => ({
      v: 1 as const,
      id,
      cron: "* * * * *",
      timezone: "UTC",
      agent: { model: "scripted", task: "write the report", maxSteps: 5, workspace },
      owner: "ann",
      source: { kind: "cronjob" as const },
    });
    await service.create(spec("authorised"), { approvalSource: "human", approver: "bob" });
    await service.create(spec("unauthorised"), { approvalSource: "auto" });

    const tick = start + MINUTE;
    const scheduler = new Scheduler({ store, agentQueue: queue, clock, lockLeaseMs: 60_000 });
    const report = await scheduler.runDue(tick);
    expect(report.results).toEqual({ fired: 2 });

    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    await events.waitUntilReady();
    const worker = await startWorkerPart(
      { config, logger, env: {}, redis, baseDir: dir, protectedPaths: [] },
      {
        registry: createToolRegistry([countingWriteTool(counter)]),
        releaseRun: async () => 0,
        close: async () => undefined,
      },
    );
    try {
      const runs = {
        authorised: scheduledRunId("authorised", tick),
        unauthorised: scheduledRunId("unauthorised", tick),
      };
      for (const runId of Object.values(runs)) {
        const outcome = await (await findRunJob(queue, runId))!.waitUntilFinished(events, 30_000);
        expect(outcome).toMatchObject({ status: "completed", finalAnswer: "done" });
      }

      // The write happened exactly once: the authorised run's.
      expect([...(await countExecutions(counter)).values()]).toEqual([1]);
      const journal = new Journal({ redis, keyPrefix });
      const writeResult = async (runId: string) => {
        const snapshot = await journal.readRun(runId);
        return [...snapshot.records.entries()].find(([key]) => !key.startsWith("model:"))?.[1];
      };
      expect(await writeResult(runs.authorised)).toMatchObject({
        result: { success: true, output: "wrote nightly" },
      });
      expect(await writeResult(runs.unauthorised)).toMatchObject({
        result: { success: false, errorKind: "denied" },
      });

      // The audit trail says why: the same call, allowed with the grant, denied without it.
      const trail = new AuditTrail({ redis, keyPrefix });
      const decisionOf = async (runId: string) =>
        (await trail.readByTrace(runId))
          .map((e) => e.entry)
          .find((e) => e.kind === "decision" && e.tool === "write_file") as
          | { verdict: string; step: number; reason: string }
          | undefined;
      const allowed = await decisionOf(runs.authorised);
      const denied = await decisionOf(runs.unauthorised);
      expect(allowed).toMatchObject({ verdict: "allow" });
      expect(denied).toMatchObject({ verdict: "deny", step: 4 });
      expect(denied?.reason).toMatch(/unattended/i);

      // Both runs ended, so neither counts as active for the overlap policy any more.
      expect(await store.activeRuns("authorised")).toEqual(new Map());
      expect(await store.activeRuns("unauthorised")).toEqual(new Map());
    } finally {
      await worker.stop();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 60_000);
});
