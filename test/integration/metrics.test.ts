import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { storeApprovals } from "../../src/agent/index.js";
import { ApprovalNotifications, ApprovalStore } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createHttpServer } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { createMetricsCollector, RunnerMetrics } from "../../src/metrics/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { Scheduler, ScheduleService, ScheduleStore } from "../../src/scheduler/index.js";
import { ManualClock, systemClock } from "../../src/shared/index.js";
import { agentQueue, countingWriteTool, testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { freePort } from "../helpers/free-port.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * /metrics over real HTTP after a real run: an allowed write, a call to a tool that is not there
 * (denied by policy, step 0), an exec that parks for approval; then the approval, the resumed run and
 * its end. The worker writes the counters to Redis; the HTTP server reads them on scrape.
 */

const TOKEN = "metrics-token-0123456789abcdef-0123456789";
const redis = testRedisClient();
const keyPrefix = uniquePrefix("metrics");
const logger = createLogger({ level: "silent", format: "json" });
const queue = agentQueue(redis, keyPrefix);
const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
let app: ReturnType<typeof createHttpServer>;
let base: string;
let dir: string;

const markerExec = defineTool({
  name: "exec",
  description: "creates a marker file (test tool)",
  parameters: Type.Object({ command: Type.String() }),
  async execute(args) {
    await writeFile(join(dir, args.command.replace(/^touch /, "")), "ran\n");
    return toolSuccess(`ran ${args.command}`);
  },
});

const script = stringify([
  { tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "one" } }] },
  { tool_calls: [{ name: "launch_rockets", arguments: { count: 3 } }] },
  { tool_calls: [{ name: "exec", arguments: { command: "touch ran.txt" } }] },
  { content: "finished" },
]);

const store = new ApprovalStore({
  redis,
  keyPrefix,
  policy: {
    waitTimeoutMs: 3_600_000,
    approvers: [
      { id: "alice", email: null },
      { id: "bob", email: null },
    ],
  },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-metrics-"));
  const port = await freePort();
  app = createHttpServer({
    redis,
    logger,
    keyPrefix,
    metrics: {
      collector: createMetricsCollector({
        redis,
        keyPrefix,
        approvals: store,
        queues: [queue],
        clock: systemClock,
      }),
    },
    metricsToken: TOKEN,
  });
  await app.listen({ host: "127.0.0.1", port });
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await app?.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

async function scrape(): Promise<string> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
}

/** The value of one series line (exact name and labels as rendered), or undefined. */
function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("/metrics", () => {
  it.each([
    ["no Authorization header", {}],
    ["a wrong token", { authorization: "Bearer wrong" }],
  ])("refuses %s with 401", async (_name, headers) => {
    const res = await fetch(`${base}/metrics`, { headers });
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain("echo_");
  });

  it("answers 503 when no API token is configured", async () => {
    const bare = createHttpServer({
      redis,
      logger,
      metrics: {
        collector: createMetricsCollector({
          redis,
          keyPrefix,
          approvals: store,
          queues: [queue],
          clock: systemClock,
        }),
      },
    });
    const res = await bare.inject({ method: "GET", url: "/metrics", headers: { authorization: "Bearer " } });
    expect(res.statusCode).toBe(503);
    await bare.close();
  });

  it("counts a run's allowed, denied and parked calls, the parked job, the approval wait and the outcome", async () => {
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [countingWriteTool(join(tmpdir(), `${keyPrefix}-count.txt`)), markerExec],
      script,
      configOverrides: { permissions: { elevated: { enabled: false } } },
    });
    const notifications = new ApprovalNotifications({ store, notifiers: [], publicUrl: base, logger });
    const metrics = new RunnerMetrics({ redis, keyPrefix, logger });
    const worker = startAgentWorker({
      connection: redis,
      keyPrefix,
      concurrency: 1,
      deps: { ...deps, approvals: storeApprovals({ store, notifications, logger }) },
      metrics,
    });
    try {
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("delayed");

      const parked = await scrape();
      expect(value(parked, 'echo_tool_calls_total{tool="write_file",verdict="allow",step="5"}')).toBe(1);
      expect(value(parked, 'echo_tool_calls_total{tool="(unknown)",verdict="deny",step="0"}')).toBe(1);
      expect(parked).not.toContain("launch_rockets");
      expect(value(parked, 'echo_tool_calls_total{tool="exec",verdict="ask",step="11"}')).toBe(1);
      expect(value(parked, 'echo_tool_executions_total{tool="write_file",outcome="success"}')).toBe(1);
      expect(value(parked, "echo_approvals_pending")).toBe(1);
      expect(value(parked, 'echo_queue_jobs{queue="agent",state="parked"}')).toBe(1);
      expect(value(parked, 'echo_queue_jobs{queue="agent",state="delayed"}')).toBe(0);
      expect(value(parked, "echo_run_parks_total")).toBe(1);
      expect(parked).not.toContain("echo_runs_total{");

      const [request] = await store.list({ status: "pending" });
      const decided = await store.decide({
        id: request!.id,
        actor: { kind: "operator", id: "bob", via: "api" },
        decision: "approve",
      });
      expect(decided.outcome).toBe("decided");
      await (await findRunJob(queue, payload.runId))?.promote();
      const outcome = await (await findRunJob(queue, payload.runId))!.waitUntilFinished(events, 15_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "finished" });

      const done = await scrape();
      expect(value(done, 'echo_runs_total{outcome="completed"}')).toBe(1);
      expect(done).toMatch(/^echo_tool_calls_total\{tool="exec",verdict="allow",step="\d+"\} 1$/m);
      expect(value(done, 'echo_tool_executions_total{tool="exec",outcome="success"}')).toBe(1);
      expect(value(done, "echo_approvals_pending")).toBe(0);
      expect(value(done, 'echo_queue_jobs{queue="agent",state="parked"}')).toBe(0);
      expect(value(done, 'echo_approval_wait_seconds_count{status="approved"}')).toBe(1);
      expect(value(done, 'echo_approval_wait_seconds_bucket{status="approved",le="+Inf"}')).toBe(1);
      const wait = value(done, 'echo_approval_wait_seconds_sum{status="approved"}');
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThan(60);

      // Scrapes of two HTTP processes at once, then another: nothing is folded twice.
      const other = createMetricsCollector({
        redis,
        keyPrefix,
        approvals: store,
        queues: [queue],
        clock: systemClock,
      });
      await Promise.all([other.render(), other.render(), scrape()]);
      const again = await scrape();
      expect(value(again, 'echo_approval_wait_seconds_count{status="approved"}')).toBe(1);
      expect(value(again, 'echo_runs_total{outcome="completed"}')).toBe(1);
    } finally {
      await worker.close();
    }
  });
});

describe("run outcomes", () => {
  it("counts a run's end once even when a worker finishes the same run again after a crash", async () => {
    const prefix = uniquePrefix("metrics-runs");
    const metrics = new RunnerMetrics({ redis, keyPrefix: prefix, logger });
    const approvals = new ApprovalStore({
      redis,
      keyPrefix: prefix,
      policy: { waitTimeoutMs: 60_000, approvers: [] },
    });
    const collector = createMetricsCollector({
      redis,
      keyPrefix: prefix,
      approvals,
      queues: [],
      clock: systemClock,
    });
    try {
      await metrics.runEnded("run-a", "completed");
      await metrics.runEnded("run-a", "completed");
      await metrics.runEnded("run-b", "failed");
      await metrics.runRetrying();
      const text = await collector.render();
      expect(value(text, 'echo_runs_total{outcome="completed"}')).toBe(1);
      expect(value(text, 'echo_runs_total{outcome="failed"}')).toBe(1);
      expect(value(text, "echo_run_retries_total")).toBe(1);
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
    }
  });
});

describe("schedule metrics", () => {
  it("counts a scheduler's firings and overlap skips from its passes", async () => {
    const prefix = uniquePrefix("metrics-sched");
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 30));
    const scheduleStore = new ScheduleStore({ redis, keyPrefix: prefix });
    const schedQueue = agentQueue(redis, prefix);
    const service = new ScheduleService({ store: scheduleStore, agentQueue: schedQueue, clock });
    await service.create(
      {
        v: 1,
        id: "minutely",
        cron: "* * * * *",
        timezone: "UTC",
        agent: { model: "scripted", task: "check", maxSteps: 5, workspace: "/tmp/ws" },
        owner: "alice",
        source: { kind: "cronjob" },
      },
      { approvalSource: "human", approver: "bob" },
    );
    const metrics = new RunnerMetrics({ redis, keyPrefix: prefix, logger });
    const scheduler = new Scheduler({
      store: scheduleStore,
      agentQueue: schedQueue,
      clock,
      pollMs: 20,
      onPass: (report) => metrics.schedulePass(report),
    });
    const approvals = new ApprovalStore({
      redis,
      keyPrefix: prefix,
      policy: { waitTimeoutMs: 60_000, approvers: [] },
    });
    const collector = createMetricsCollector({
      redis,
      keyPrefix: prefix,
      approvals,
      queues: [schedQueue],
      clock: systemClock,
    });
    scheduler.start();
    try {
      // First tick: fired. Nothing works the queue, so the run stays active for the next tick.
      clock.set(Date.UTC(2026, 0, 1, 0, 1, 1));
      await expect
        .poll(async () => value(await collector.render(), 'echo_schedule_ticks_total{result="fired"}'), {
          timeout: 10_000,
        })
        .toBe(1);
      clock.set(Date.UTC(2026, 0, 1, 0, 2, 1));
      await expect
        .poll(
          async () => value(await collector.render(), 'echo_schedule_ticks_total{result="skipped-overlap"}'),
          { timeout: 10_000 },
        )
        .toBe(1);
      const text = await collector.render();
      expect(value(text, 'echo_schedule_ticks_total{result="fired"}')).toBe(1);
      expect(value(text, 'echo_queue_jobs{queue="agent",state="waiting"}')).toBe(1);
    } finally {
      await scheduler.stop();
      await schedQueue.obliterate({ force: true });
      await schedQueue.close();
      await deleteKeysWithPrefix(redis, prefix);
    }
  });
});
