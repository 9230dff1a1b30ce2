import type { FastifyInstance } from "fastify";
import type { MetricsCollector } from "../metrics/index.js";
import { hasBearerToken } from "./bearer-auth.js";

/** Options of `/metrics` (see {@link HttpServerOptions.metrics}). */
export interface MetricsHttpOptions {
  collector: MetricsCollector;
  /**
   * The API bearer token (`http.api_token_env`). Prometheus sends it with `authorization:
   * {credentials_file: ...}`. Undefined or empty: `/metrics` answers 503 (fail closed).
   */
  apiToken?: string;
}

/**
 * `GET /metrics`: the Prometheus text exposition, behind the API token. The series hold no secret
 * (counts by tool, verdict, step, outcome and queue state), but the server also faces approvers on
 * the public URL, and what runs how often is nobody else's business.
 */
export async function metricsRoutes(app: FastifyInstance, options: MetricsHttpOptions): Promise<void> {
  app.get("/metrics", async (request, reply) => {
    reply.header("cache-control", "no-store");
    if (!options.apiToken) {
      return reply
        .code(503)
        .send({ error: "METRICS_DISABLED", message: "/metrics needs the API bearer token configured" });
    }
    if (!hasBearerToken(request, options.apiToken)) {
      reply.header("www-authenticate", 'Bearer realm="echo-runner"');
      return reply.code(401).send({ error: "UNAUTHORIZED", message: "a valid bearer token is required" });
    }
    const body = await options.collector.render();
    return reply.type(options.collector.contentType).send(body);
  });
}
