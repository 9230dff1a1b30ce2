import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { boundPublicUrl } from "../src/config/index.js";
import { createRedisConnection, type RedisConnection } from "../src/queue/index.js";
import {
  checkRedisDurability,
  checkTraceSettings,
  type PartContext,
  type ProcessOptions,
  type ProcessPart,
  type RunningPart,
  type RunningProcess,
  startHttpPart,
  startSchedulerPart,
  startWorkerPart,
  toolRegistryFor,
} from "../src/runtime/index.js";
import { type LocalRedis, startLocalRedis, startsLocalRedis } from "./local-redis.js";
import { runShutdown, type ShutdownStep } from "./shutdown.js";

/** When Redis is already gone at shutdown, waiting for it longer than this helps nobody. */
const REDIS_DOWN_GRACE_MS = 2000;

/** Names of the commands ioredis still holds for a connection that is down (queued, never sent). */
function unsentCommands(redis: RedisConnection): string[] {
  const queues = [
    (redis as unknown as { offlineQueue?: Iterable<{ command?: { name?: string } }> }).offlineQueue,
    (redis as unknown as { commandQueue?: unknown }).commandQueue as unknown as
      | Iterable<{ command?: { name?: string } }>
      | undefined,
  ];
  const names: string[] = [];
  for (const queue of queues) {
    if (!queue) continue;
    for (const item of Array.from(queue)) names.push(item.command?.name ?? "?");
  }
  return names;
}

function countNames(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].map(([n, c]) => (c > 1 ? `${n} x${c}` : n)).join(", ");
}

/** Paths agents' file tools may only read: the config files and the data dir (but the demo workspace). */
async function protectedPathsOf(options: ProcessOptions): Promise<string[]> {
  if (!options.workspaceInDataDir) return [options.dataDir, ...options.configPaths];
  const workspace = resolve(options.workspaceInDataDir);
  const entries = await readdir(options.dataDir).catch(() => [] as string[]);
  const inside = entries.map((e) => join(resolve(options.dataDir), e)).filter((p) => p !== workspace);
  // The Redis directory and the process records are protected even before they are created: a
  // record an agent could write would name a process group for the next worker to kill (a worker
  // record, jobs to take back), and a
  // layer an agent could write would land in a workspace.
  const made = ["redis", "processes", "layers", "workers"].map((name) =>
    join(resolve(options.dataDir), name),
  );
  return [...new Set([...made, ...inside, ...options.configPaths])];
}

/**
 * Starts Redis (if needed) and the chosen parts in this process: `start` runs all three;
 * `worker`, `scheduler` and `serve` run one each, for several machines against one Redis.
 */
export async function startProcess(options: ProcessOptions): Promise<RunningProcess> {
  const { config, logger } = options;
  // A worker's trace settings are checked before any child process starts.
  if (options.parts.includes("worker")) checkTraceSettings(options.env);
  let local: LocalRedis | undefined;
  let redisUrl = options.redisUrl;
  const clusterNodes = config.redis.cluster_nodes;
  // A cluster, or a Redis on another host or with a password, is the operator's own: no local
  // redis-server is started for it.
  if (!redisUrl && clusterNodes.length === 0 && startsLocalRedis(config.redis.url)) {
    local = await startLocalRedis(config.redis.url, `${options.dataDir}/redis`);
    redisUrl = local.url;
    if (local.staleStopped !== undefined) {
      logger.warn(
        { pid: local.staleStopped, dataDir: local.dataDir },
        "stopped a redis-server an earlier runner left running on this data dir, then started a fresh one",
      );
    }
    logger.info(
      { dataDir: local.dataDir, url: local.url },
      "REDIS_URL is not set: started a local redis-server (AOF on, noeviction); set REDIS_URL to use your own",
    );
  }
  redisUrl ||= config.redis.url;
  const redis = createRedisConnection(
    { url: redisUrl, clusterNodes },
    { maxRetriesPerRequest: null, lazyConnect: true },
  );
  // One line when the connection fails and one when it is back, not one per reconnect attempt.
  let connectionDown = false;
  redis.on("error", (err) => {
    if (connectionDown) return;
    connectionDown = true;
    logger.warn({ err: err.message }, "redis connection error; reconnecting (logged again once it is back)");
  });
  redis.on("ready", () => {
    if (!connectionDown) return;
    connectionDown = false;
    logger.info("redis connection is back");
  });
  await redis.connect();
  const ctx: PartContext = {
    config,
    logger,
    env: options.env,
    redis,
    baseDir: options.baseDir,
    protectedPaths: await protectedPathsOf(options),
    dataDir: resolve(options.dataDir),
  };
  if (options.parts.includes("worker") && !config.smtp.host)
    logger.warn("smtp.host is not set: approval mails and their links are printed to this terminal (stderr)");
  const running: { name: ProcessPart; part: RunningPart }[] = [];
  let httpAddress: string | undefined;
  const tools = await toolRegistryFor(ctx);
  try {
    // A worker journals tool calls: say what a machine crash can do to them (strict: refuse).
    if (options.parts.includes("worker")) await checkRedisDurability(redis, config, logger);
    if (options.parts.includes("http")) {
      const http = await startHttpPart(ctx);
      httpAddress = http.address;
      running.push({ name: "http", part: http });
    }
    if (options.parts.includes("worker")) {
      // Approval links carry the port the server bound (http.port 0 lets the system pick one).
      const publicUrl = boundPublicUrl(config.http.public_url, httpAddress);
      const workerCtx =
        publicUrl === config.http.public_url
          ? ctx
          : { ...ctx, config: { ...config, http: { ...config.http, public_url: publicUrl } } };
      if (workerCtx !== ctx) logger.info({ publicUrl }, "approval links use the bound port");
      running.push({ name: "worker", part: await startWorkerPart(workerCtx, tools) });
    }
    if (options.parts.includes("scheduler")) {
      running.push({ name: "scheduler", part: startSchedulerPart(ctx, options.configSchedules) });
    }
  } catch (err) {
    for (const { part } of running.reverse()) await part.stop().catch(() => undefined);
    redis.disconnect();
    await local?.stop();
    throw err;
  }
  return {
    httpAddress,
    redisUrl,
    async stop() {
      // Stop taking work first, then the rest; the journal leaves any interrupted call in doubt.
      const redisUp = redis.status === "ready";
      if (!redisUp)
        logger.error(
          { redis: redact(redisUrl), status: redis.status },
          "Redis is unreachable at shutdown: stopping without waiting for it",
        );
      const partSteps: ShutdownStep[] = [...running].reverse().map(({ name, part }) => ({
        name,
        run: () => part.stop(),
        ifUnfinished: UNFINISHED[name],
      }));
      const report = await runShutdown(
        [
          ...partSteps,
          {
            name: "tools",
            run: () => tools.close(),
            ifUnfinished: "background processes and MCP servers started by tools may still be running",
          },
          {
            name: "redis connection",
            run: async () => {
              const unsent = unsentCommands(redis);
              if (redis.status !== "ready") {
                redis.disconnect();
                if (unsent.length > 0)
                  throw new Error(`${unsent.length} command(s) never reached Redis: ${countNames(unsent)}`);
                return;
              }
              await redis.quit();
            },
            ifUnfinished:
              "writes of calls in flight (journal, audit) may be missing; those calls stay in doubt and are never silently re-run",
          },
          {
            name: "local redis-server",
            run: async () => local?.stop(),
            ifUnfinished: "the local redis-server may still be running; its AOF is fsynced every second",
          },
        ],
        { deadlineMs: redisUp ? (options.shutdownGraceMs ?? 10_000) : REDIS_DOWN_GRACE_MS },
      );
      redis.disconnect();
      if (report.clean) logger.info("stopped cleanly");
      else
        logger.error(
          { notFlushed: report.notFlushed },
          `stopped, but not everything was flushed:\n  - ${report.notFlushed.join("\n  - ")}`,
        );
      return report;
    },
  };
}

/** What each part leaves undone if its stop does not finish. */
const UNFINISHED: Record<ProcessPart, string> = {
  http: "open HTTP requests were cut off (an approval click in flight may need to be repeated)",
  worker:
    "runs in flight did not finish: their tool calls stay as journalled claims (in doubt, never silently re-run) and BullMQ hands the jobs to a worker again once their locks lapse",
  scheduler:
    "the scheduler's leader lock may be held until it expires; ticks due meanwhile follow the catch-up policy",
};

/** A Redis URL without its password, for the log. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable url)";
  }
}
