import { join } from "node:path";
import { type RunDeps, RunOperations, storeApprovals } from "../../agent/index.js";
import type { AlertSender } from "../../alerts/index.js";
import type { ApprovalNotifications, ApprovalStore } from "../../approvals/index.js";
import type { Logger } from "../../logging/index.js";
import { RunnerMetrics } from "../../metrics/index.js";
import {
  COMPACT_HASH_FIX,
  COMPACT_HASH_VALUE,
  duplicateRedisConnection,
  lowHashListpackValues,
  type RedisConnection,
  watchRemovedRuns,
} from "../../queue/index.js";
import { createScheduleRunHooks } from "../../scheduler/index.js";
import { alertReporterFromConfig, alertSenderFromConfig } from "../alerts-from-config.js";
import { allowAlwaysFromConfig } from "../allow-always-from-config.js";
import { approvalsFromConfig } from "../approvals-from-config.js";
import { callGuardFromConfig } from "../guard-from-config.js";
import { runOwner } from "../owner-notifier-from-config.js";
import type { PartContext } from "../part-context.js";
import { rideRedisOutagesFromConfig } from "../redis-outage-from-config.js";
import { buildRunDeps } from "../run-deps-from-config.js";
import { toolEnvironmentFromProbe } from "../tool-environment-from-probe.js";
import type { WorkerTools } from "../tool-set-from-config.js";
import { startAgentWorker } from "./agent-worker.js";
import { startApprovalPromoter } from "./approval-promoter.js";

import type { RunningPart } from "./running-part.js";

/**
 * A run whose job is removed (cancelled by an operator) leaves no approval pending: its requests are
 * marked cancelled, and their links then say the request is no longer pending.
 */
function startCanceller(ctx: PartContext, store: ApprovalStore): RunningPart & { ready: Promise<void> } {
  return watchRemovedRuns(ctx.redis, ctx.config.redis.key_prefix, (jobId) => {
    store
      .cancelRun(jobId)
      .catch((err: unknown) => ctx.logger.warn({ jobId, err: String(err) }, "cancelling approvals failed"));
  });
}

/**
 * Re-sends unsent approval mails, sends reminders, escalates requests nobody settled in time
 * (`escalate_after_minutes`) and expires overdue requests, every 30 s.
 */
function startSweeper(
  ctx: PartContext,
  store: ApprovalStore,
  notifications: ApprovalNotifications,
): RunningPart {
  // A sweep with SMTP down takes seconds per unsent request; a tick while one runs is skipped, not
  // stacked (the send lease keeps other processes' sweeps and inline sends off the same mail).
  let running = false;
  // Each step on its own: a step that fails (SMTP down, one damaged record) must not keep the
  // steps after it from running, least of all the expiry that turns an overdue request into a denial.
  const steps: readonly [string, () => Promise<unknown>][] = [
    ["re-send unsent mails", () => notifications.retryUnsent()],
    ["send reminders", () => notifications.remindDue()],
    ["send escalations", () => notifications.escalateDue()],
    ["expire overdue requests", () => store.expireDue()],
  ];
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      for (const [step, run] of steps) {
        await run().catch((err: unknown) =>
          ctx.logger.warn({ err: (err as Error).message, step }, "approval sweeper step failed; will retry"),
        );
      }
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), 30_000);
  timer.unref();
  void sweep();
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}

/**
 * Sends due alerts every 2 s (a cheap look at the outbox's due set); a tick while one runs is
 * skipped. The per-group send lease keeps other processes' senders off the same group.
 */
function startAlertSender(ctx: PartContext, sender: AlertSender): RunningPart {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = sender
      .sweep()
      .then(() => undefined)
      .catch((err: unknown) =>
        ctx.logger.warn({ err: (err as Error).message }, "alert sender failed; will retry"),
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, 2_000);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** The agent worker: runs, approvals promotion and sweeping, alerts, grant checks at run start. */
export async function startWorkerPart(
  processCtx: PartContext,
  tools: WorkerTools,
  overrides: Partial<RunDeps> = {},
): Promise<RunningPart> {
  const { config, logger } = processCtx;
  // Its own connection, which waits out a Redis that refuses writes (OOM, MISCONF, …) for up to
  // execution.redis_outage_seconds: runs pause instead of spending their attempts, while the
  // scheduler and the HTTP server on the process's other connection keep answering at once.
  const redis = duplicateRedisConnection(processCtx.redis);
  redis.on("error", () => undefined); // a lost connection is logged once, by the rider
  let metrics: RunnerMetrics | undefined;
  rideRedisOutagesFromConfig(redis, config, logger, {
    onOver: (condition, seconds) => void metrics?.redisOutage(condition, seconds),
  });
  if (redis.status === "wait") await redis.connect();
  const ctx: PartContext = { ...processCtx, redis };
  const keyPrefix = config.redis.key_prefix;
  const approvals = approvalsFromConfig(config, redis, ctx.env, logger, { sending: true });
  const { store, notifications } = approvals;
  const hooks = createScheduleRunHooks({ redis, keyPrefix });
  const alerts = alertReporterFromConfig(config, redis, ctx.env, logger);
  const alertSender = alertSenderFromConfig(config, redis, ctx.env, logger, store);
  const guard = await callGuardFromConfig(config, {
    env: ctx.env,
    protectedPaths: ctx.protectedPaths,
    ...(tools.processCommand ? { processCommand: tools.processCommand } : {}),
  });
  const allowAlways = allowAlwaysFromConfig(config, redis);
  const deps = await buildRunDeps({
    config,
    redis,
    toolEnvironment: await toolEnvironmentFromProbe(config, ctx.env, logger),
    registry: tools.registry,
    guard,
    approvals: storeApprovals({
      store,
      notifications,
      logger,
      allowAlways,
      onExpired: (record) =>
        alerts.callExpired(
          { runId: record.runId, agent: record.agent, scheduleId: record.scheduleId, owner: record.owner },
          record.id,
          record.tool,
        ),
    }),
    gatePorts: { allowAlways },
    logger,
    env: ctx.env,
    baseDir: ctx.baseDir,
    // The grant is checked when the run starts, never trusted from the payload.
    cronAuthorized: async (payload) =>
      payload.origin.scheduleId
        ? (await hooks.resolveCronAuthorization(payload.origin.scheduleId, Date.now())).cronAuthorized
        : false,
  });
  metrics = new RunnerMetrics({ redis, keyPrefix, logger });
  const operations = new RunOperations({ redis, keyPrefix, approvals: store });
  // Before taking any run: end what a dead worker on this data dir left running.
  await metrics.processesReaped("orphan", tools.reapOrphans?.().reaped ?? 0);
  const worker = startAgentWorker({
    connection: redis,
    keyPrefix,
    concurrency: config.execution.worker_concurrency,
    keepFinished: config.retention.finished_jobs,
    deps: { ...deps, ...(tools.layers?.kind === "on" ? { layers: tools.layers.port } : {}), ...overrides },
    metrics,
    releaseRun: tools.releaseRun,
    cancels: operations,
    ...(ctx.dataDir ? { workerRecordsDir: join(ctx.dataDir, "workers") } : {}),
    onRunFinished: async (payload, end) => {
      // Alerts first: they never throw, and a failing schedule hook must not swallow them.
      const scheduleId = payload.origin.scheduleId ?? null;
      if (end.status === "completed") await alerts.runSucceeded(scheduleId);
      if (end.status === "failed") {
        const run = {
          runId: payload.runId,
          agent: payload.agentId,
          scheduleId,
          owner: runOwner(config, payload),
        };
        await alerts.runFailed(run, end.code, end.message);
      }
      if (scheduleId) await hooks.markScheduleRunFinished(scheduleId, payload.runId);
    },
  });
  await worker.waitUntilReady();
  const promoter = startApprovalPromoter({
    connection: ctx.redis,
    keyPrefix,
    store: (reader) => approvalsFromConfig(config, reader, ctx.env, logger).store,
    logger,
  });
  const canceller = startCanceller(ctx, store);
  await canceller.ready;
  const sweeper = startSweeper(ctx, store, notifications);
  const alertSending = startAlertSender(ctx, alertSender);
  logger.info({ concurrency: config.execution.worker_concurrency }, "agent worker running");
  void warnIfHashesNotCompact(redis, logger);
  return {
    async stop() {
      await alertSending.stop();
      await sweeper.stop();
      await canceller.stop();
      await promoter.stop();
      await worker.close();
      // After the worker: the spans of the runs it just let go are in the last batch.
      await deps.tracer?.shutdown();
      await operations.close();
      await approvals.close();
      if (redis.status === "ready") await redis.quit().catch(() => undefined);
      redis.disconnect();
    },
  };
}

/**
 * Logs one warning line when the Redis the worker uses keeps hashes compact only up to less than
 * 1024 bytes a value (as `echo-runner doctor` checks): every parked run then costs ~1.4 KB more
 * (docs/BENCHMARKS.md). A warning, never a refusal to start: it costs memory, not correctness; a
 * Redis that refuses CONFIG (managed services) is not warned about.
 */
export async function warnIfHashesNotCompact(redis: RedisConnection, logger: Logger): Promise<void> {
  const low = await lowHashListpackValues(redis).catch(() => []);
  if (low.length === 0) return;
  logger.warn(
    { redis: low.map((l) => `${l.server} hash-max-listpack-value ${l.value}`).join(", ") },
    `Redis hash-max-listpack-value is below ${COMPACT_HASH_VALUE}: each parked run costs ~1.4 KB more; run \`${COMPACT_HASH_FIX}\` and set it in redis.conf`,
  );
}
