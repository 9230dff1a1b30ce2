import { join } from "node:path";
import { type RunDeps, RunOperations, storeApprovals } from "../src/agent/index.js";
import type { AlertSender } from "../src/alerts/index.js";
import type { ApprovalNotifications, ApprovalStore } from "../src/approvals/index.js";
import { createHttpServer } from "../src/http/index.js";
import type { Logger } from "../src/logging/index.js";
import { createMetricsCollector, RunnerMetrics } from "../src/metrics/index.js";
import {
  COMPACT_HASH_FIX,
  COMPACT_HASH_VALUE,
  duplicateRedisConnection,
  lowHashListpackValues,
  openAgentQueue,
  type RedisConnection,
  watchRemovedRuns,
} from "../src/queue/index.js";
import { RunInspector } from "../src/runs/index.js";
import {
  alertReporterFromConfig,
  alertSenderFromConfig,
  allowAlwaysFromConfig,
  approvalsFromConfig,
  buildRunDeps,
  callGuardFromConfig,
  metricsTokenFromConfig,
  operatorsFromConfig,
  type PartContext,
  rideRedisOutagesFromConfig,
  runOwner,
  slackInteractionsFromConfig,
  startApprovalPromoter,
  storyReaderFromConfig,
  toolEnvironmentFromProbe,
  type WorkerTools,
} from "../src/runtime/index.js";
import {
  type ConfigScheduleEntry,
  createScheduleRunHooks,
  Scheduler,
  ScheduleService,
  ScheduleStore,
} from "../src/scheduler/index.js";
import { RunnerError, systemClock } from "../src/shared/index.js";
import { startAgentWorker } from "./agent-worker.js";

export type { PartContext } from "../src/runtime/index.js";

/** A started part; stop() is idempotent and waits for in-flight work to settle. */
export interface RunningPart {
  stop(): Promise<void>;
}

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
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      await notifications.retryUnsent();
      await notifications.remindDue();
      await notifications.escalateDue();
      await store.expireDue();
    } catch (err) {
      ctx.logger.warn({ err: (err as Error).message }, "approval sweeper failed; will retry");
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
      await operations.close();
      await approvals.close();
      if (redis.status === "ready") await redis.quit().catch(() => undefined);
      redis.disconnect();
    },
  };
}

/** The scheduler: one leader fires due ticks into the agent queue. */
export function startSchedulerPart(
  ctx: PartContext,
  configSchedules: readonly ConfigScheduleEntry[],
): RunningPart {
  const { config, logger, redis } = ctx;
  const queue = openAgentQueue(redis, config.redis.key_prefix);
  const metrics = new RunnerMetrics({ redis, keyPrefix: config.redis.key_prefix, logger });
  // Missed firings go to the alerts outbox; the worker's sender mails them.
  const alerts = alertReporterFromConfig(config, redis, ctx.env, logger);
  const scheduler = new Scheduler({
    store: new ScheduleStore({ redis, keyPrefix: config.redis.key_prefix }),
    agentQueue: queue,
    configSchedules,
    logger,
    onPass: (report) => metrics.schedulePass(report),
    onMissed: (schedule, missed, note) =>
      alerts.scheduleMissed(
        {
          id: schedule.id,
          agent: `schedule:${schedule.id}`,
          owner: runOwner(config, { userId: schedule.owner, origin: { scheduleId: schedule.id } }),
        },
        missed,
        note,
      ),
  });
  scheduler.start();
  logger.info({ schedules: configSchedules.length }, "scheduler running");
  return {
    async stop() {
      await scheduler.stop();
      await queue.close();
    },
  };
}

/** The HTTP server: health, approval pages, the approval JSON API, /metrics and the /admin dashboard. */
export async function startHttpPart(ctx: PartContext): Promise<RunningPart & { address: string }> {
  const { config, logger, redis } = ctx;
  const { store } = approvalsFromConfig(config, redis, ctx.env, logger);
  const operators = operatorsFromConfig(config, ctx.env);
  const metricsToken = metricsTokenFromConfig(config, ctx.env, operators);
  const limit = config.http.failure_limit;
  const queue = openAgentQueue(redis, config.redis.key_prefix);
  const collector = createMetricsCollector({
    redis,
    keyPrefix: config.redis.key_prefix,
    approvals: store,
    queues: [queue],
    clock: systemClock,
  });
  const inspector = new RunInspector({ redis, keyPrefix: config.redis.key_prefix, approvals: store });
  const operations = new RunOperations({ redis, keyPrefix: config.redis.key_prefix, approvals: store });
  const storyReader = storyReaderFromConfig(config, redis, store);
  const grants = allowAlwaysFromConfig(config, redis);
  const slack = slackInteractionsFromConfig(config, ctx.env, store);
  const app = createHttpServer({
    redis,
    logger,
    keyPrefix: config.redis.key_prefix,
    operators,
    ...(metricsToken ? { metricsToken } : {}),
    trustProxy: config.http.trust_proxy,
    ...(slack ? { slack } : {}),
    failureLimits: {
      windowMs: limit.window_seconds * 1000,
      perSource: limit.per_source,
      global: limit.global,
      perLink: limit.per_link,
    },
    approvals: {
      store,
      publicUrl: config.http.public_url,
      story: storyReader.story,
      grants,
    },
    metrics: { collector },
    runs: { actions: operations, inspector },
    admin: {
      actions: operations,
      keyPrefix: config.redis.key_prefix,
      publicUrl: config.http.public_url,
      approvals: store,
      grants,
      runs: inspector,
      queues: [queue],
      schedules: new ScheduleService({
        store: new ScheduleStore({ redis, keyPrefix: config.redis.key_prefix }),
      }),
    },
  });
  const address = await app
    .listen({ host: config.http.host, port: config.http.port })
    .catch(async (err: NodeJS.ErrnoException) => {
      await app.close().catch(() => undefined);
      throw listenFailure(err, config.http.host, config.http.port);
    });
  logger.info({ address, publicUrl: config.http.public_url }, "http server listening");
  return {
    address,
    async stop() {
      await app.close();
      await inspector.close();
      await operations.close();
      await storyReader.close();
      await queue.close();
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

/** A port that cannot be listened on, named with the setting that changes it (one line, no stack). */
function listenFailure(err: NodeJS.ErrnoException, host: string, port: number): unknown {
  const where = `${host}:${port}`;
  const change = `set http.port (env ECHO_RUNNER_HTTP__PORT) to a free port, or 0 to let the system pick one`;
  if (err.code === "EADDRINUSE")
    return new RunnerError(
      "HTTP_PORT_UNAVAILABLE",
      `${where} is already in use (another echo-runner, or another program): ${change}`,
      {
        data: { host, port },
      },
    );
  if (err.code === "EACCES")
    return new RunnerError(
      "HTTP_PORT_UNAVAILABLE",
      `${where} needs privileges this process does not have (ports below 1024): ${change}`,
      {
        data: { host, port },
      },
    );
  if (err.code === "EADDRNOTAVAIL")
    return new RunnerError(
      "HTTP_PORT_UNAVAILABLE",
      `${host} is not an address of this machine: set http.host (env ECHO_RUNNER_HTTP__HOST) to one of its addresses, or 127.0.0.1`,
      {
        data: { host, port },
      },
    );
  return err;
}
