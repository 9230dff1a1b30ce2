import { Redis } from "ioredis";
import type { EchoRunnerConfig } from "../src/config/index.js";
import type { Logger } from "../src/logging/index.js";
import type { ConfigScheduleEntry } from "../src/scheduler/index.js";
import type { DeepReadonly } from "../src/shared/index.js";
import { type LocalRedis, startLocalRedis } from "./local-redis.js";
import type { PartContext } from "./part-context.js";
import { type RunningPart, startHttpPart, startSchedulerPart, startWorkerPart } from "./parts.js";
import { toolRegistryFor } from "./tool-registry.js";

/** The parts one process can run. */
export const PROCESS_PARTS = ["worker", "scheduler", "http"] as const;
export type ProcessPart = (typeof PROCESS_PARTS)[number];

/** Options for {@link startProcess}. */
export interface ProcessOptions {
  config: DeepReadonly<EchoRunnerConfig>;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** REDIS_URL from the environment; when unset a local redis-server is started under dataDir. */
  redisUrl: string | undefined;
  dataDir: string;
  baseDir: string;
  configPaths: readonly string[];
  parts: readonly ProcessPart[];
  configSchedules: readonly ConfigScheduleEntry[];
}

/** A running process; stop() shuts the parts down in order and stops the local Redis last. */
export interface RunningProcess {
  httpAddress: string | undefined;
  redisUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts Redis (if needed) and the chosen parts in this process: `start` runs all three;
 * `worker`, `scheduler` and `serve` run one each, for several machines against one Redis.
 */
export async function startProcess(options: ProcessOptions): Promise<RunningProcess> {
  const { config, logger } = options;
  let local: LocalRedis | undefined;
  let redisUrl = options.redisUrl;
  if (!redisUrl) {
    local = await startLocalRedis(config.redis.url, `${options.dataDir}/redis`);
    redisUrl = local.url;
    logger.info(
      { dataDir: local.dataDir, url: local.url },
      "REDIS_URL is not set: started a local redis-server (AOF on, noeviction); set REDIS_URL to use your own",
    );
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
  redis.on("error", (err) => logger.warn({ err: err.message }, "redis connection error"));
  await redis.connect();
  const ctx: PartContext = {
    config,
    logger,
    env: options.env,
    redis,
    baseDir: options.baseDir,
    protectedPaths: [options.dataDir, ...options.configPaths],
  };
  const running: RunningPart[] = [];
  let httpAddress: string | undefined;
  const tools = await toolRegistryFor(ctx);
  try {
    if (options.parts.includes("http")) {
      const http = await startHttpPart(ctx);
      httpAddress = http.address;
      running.push(http);
    }
    if (options.parts.includes("worker")) running.push(await startWorkerPart(ctx, tools));
    if (options.parts.includes("scheduler")) running.push(startSchedulerPart(ctx, options.configSchedules));
  } catch (err) {
    for (const part of running.reverse()) await part.stop().catch(() => undefined);
    redis.disconnect();
    await local?.stop();
    throw err;
  }
  return {
    httpAddress,
    redisUrl,
    async stop() {
      // Stop taking work first, then the rest; the journal leaves any interrupted call in doubt.
      for (const part of [...running].reverse())
        await part.stop().catch((err: unknown) => logger.warn({ err: String(err) }, "stop failed"));
      await tools.close();
      await redis.quit().catch(() => redis.disconnect());
      await local?.stop();
      logger.info("stopped cleanly");
    },
  };
}
