import Fastify, { LogController } from "fastify";
import type { Cluster, Redis } from "ioredis";
import type { Logger } from "../logging/index.js";
import { type AdminHttpOptions, adminRoutes } from "./admin-routes.js";
import { approvalApiRoutes } from "./approval-api.js";
import { type ApprovalHttpOptions, approvalHttpContext } from "./approval-http-context.js";
import { approvalPageRoutes } from "./approval-routes.js";
import { type MetricsHttpOptions, metricsRoutes } from "./metrics-route.js";

/** Options for {@link createHttpServer}. */
export interface HttpServerOptions {
  redis: Redis | Cluster;
  logger: Logger;
  /** Approval pages and JSON API; omitted = not served. */
  approvals?: ApprovalHttpOptions;
  /** `/metrics` in Prometheus format, behind the API token; omitted = not served. */
  metrics?: MetricsHttpOptions;
  /** The `/admin` dashboard, signed in with the API token; omitted = not served. */
  admin?: AdminHttpOptions;
  /**
   * Fastify's `trustProxy` (`http.trust_proxy`): set it behind a reverse proxy so recorded fetch
   * addresses and rate limits use the client's address, not the proxy's. Default false.
   */
  trustProxy?: boolean | string;
}

/**
 * The HTTP server: health, the approval pages, the approval JSON API, `/metrics` and the `/admin`
 * dashboard, each group in its own scope (who may call what: ARCHITECTURE.md).
 */
export function createHttpServer(options: HttpServerOptions) {
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: options.trustProxy ?? false,
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
  if (options.approvals) {
    const ctx = approvalHttpContext(options.approvals, options.redis, options.logger);
    app.register(async (scope) => approvalPageRoutes(scope, ctx));
    app.register(async (scope) => approvalApiRoutes(scope, ctx));
  }
  const { metrics } = options;
  if (metrics) app.register(async (scope) => metricsRoutes(scope, metrics));
  const { admin } = options;
  if (admin) app.register(async (scope) => adminRoutes(scope, admin, options.redis, options.logger));
  return app;
}
