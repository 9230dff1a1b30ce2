import { Redis } from "ioredis";
import type { EchoRunnerConfig } from "../src/config/index.js";
import { createHttpServer } from "../src/http/index.js";
import type { Logger } from "../src/logging/index.js";
import type { DeepReadonly } from "../src/shared/index.js";
import { type LocalRedis, startLocalRedis } from "./local-redis.js";

/** Options for {@link startAllInOne}. */
export interface AllInOneOptions {
  config: DeepReadonly<EchoRunnerConfig>;
  logger: Logger;
  /** REDIS_URL from the environment; when unset a local redis-server is started under dataDir. */
  redisUrl: string | undefined;
  dataDir: string;
}

/** A running all-in-one process; stop() shuts it down in order and stops the local Redis last. */
export interface RunningProcess {
  httpAddress: string;
  redisUrl: string;
  stop(): Promise<void>;
}

/** Starts Redis (if needed) and the HTTP server in this process. */
export async function startAllInOne(options: AllInOneOptions): Promise<RunningProcess> {
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
  const http = createHttpServer({ redis, logger });
  const httpAddress = await http.listen({ host: config.http.host, port: config.http.port });
  logger.info({ address: httpAddress, publicUrl: config.http.public_url }, "http server listening");
  return {
    httpAddress,
    redisUrl,
    async stop() {
      await http.close();
      redis.disconnect();
      await local?.stop();
      logger.info("stopped cleanly");
    },
  };
}
