import Fastify, { LogController } from "fastify";
import type { Redis } from "ioredis";
import type { Logger } from "../logging/index.js";

/** Options for {@link createHttpServer}. */
export interface HttpServerOptions {
  redis: Redis;
  logger: Logger;
}

/**
 * The HTTP server: health now; approval pages, the JSON API, metrics and the dashboard register
 * their routes here as they arrive.
 */
export function createHttpServer(options: HttpServerOptions) {
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get("/healthz", async (_request, reply) => {
    try {
      const pong = await options.redis.ping();
      return { ok: pong === "PONG", redis: "up" };
    } catch {
      reply.code(503);
      return { ok: false, redis: "down" };
    }
  });
  return app;
}
