import type { FastifyInstance } from "fastify";
import type { Logger } from "../logging/index.js";
import type { MetricsCollector } from "../metrics/index.js";
import { checkBearer, type HttpAuth } from "./auth/index.js";
import { jsonErrorHandler } from "./pages/index.js";

/** Options of `/metrics` (see {@link HttpServerOptions.metrics}). */
export interface MetricsHttpOptions {
  collector: MetricsCollector;
}

/**
 * `GET /metrics`: the Prometheus text exposition, behind a bearer token — the read-only metrics token
 * (`http.api_token_env`) or any operator's own. The series hold no secret (counts by tool, verdict,
 * step, outcome and queue state), but the server also faces approvers on the public URL, and what
 * runs how often is nobody else's business. Failed tokens are throttled like the API's. Without any
 * token configured: 503.
 */
export async function metricsRoutes(
  app: FastifyInstance,
  options: MetricsHttpOptions,
  auth: HttpAuth,
  logger: Logger,
): Promise<void> {
  app.setErrorHandler(jsonErrorHandler(logger));
  app.get("/metrics", async (request, reply) => {
    reply.header("cache-control", "no-store");
    if (!auth.metricsToken && auth.operators.size === 0) {
      return reply
        .code(503)
        .send({ error: "METRICS_DISABLED", message: "/metrics needs a bearer token configured" });
    }
    const check = await checkBearer(request, reply, auth);
    if (check.kind === "refused") return check.reply;
    const body = await options.collector.render();
    return reply.type(options.collector.contentType).send(body);
  });
}
