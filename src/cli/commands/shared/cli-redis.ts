import { type LoadedConfig, maskUrlCredentials } from "../../../config/index.js";
import { createRedisConnection, describeRedisTarget, type RedisConnection } from "../../../queue/index.js";
import { describeRedisOutage, RunnerError } from "../../../shared/index.js";
import type { CliIo } from "../../io.js";
import { loadCliConfig } from "./cli-config.js";

/** The config and a Redis connection for one CLI command; `close()` disconnects. */
export interface CliRedis {
  loaded: LoadedConfig;
  redis: RedisConnection;
  close(): Promise<void>;
}

/**
 * Loads the config (the demo `npm start` runs when none is named) and connects to Redis (`redis.cluster_nodes` when set, else REDIS_URL over
 * `redis.url`), failing at once with
 * REDIS_UNAVAILABLE (credentials masked) instead of retrying forever.
 */
export async function connectCliRedis(io: CliIo, configPath: string | undefined): Promise<CliRedis> {
  const loaded = await loadCliConfig(io, configPath);
  const url = io.env.REDIS_URL || loaded.config.redis.url;
  const target = { url, clusterNodes: loaded.config.redis.cluster_nodes };
  const redis = createRedisConnection(target, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
  } catch (cause) {
    redis.disconnect();
    throw new RunnerError(
      "REDIS_UNAVAILABLE",
      `cannot reach ${describeRedisTarget(target, maskUrlCredentials)}: ${(cause as Error).message}; ${describeRedisOutage("connection").fix}`,
      { cause },
    );
  }
  return {
    loaded,
    redis,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
