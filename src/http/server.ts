import Fastify, { LogController } from "fastify";
import type { Cluster, Redis } from "ioredis";
import type { Logger } from "../logging/index.js";
import { type AdminHttpOptions, adminRoutes } from "./admin/index.js";
import {
  type ApprovalHttpOptions,
  approvalApiRoutes,
  approvalHttpContext,
  approvalPageRoutes,
} from "./approvals/index.js";
import type { HttpAuth } from "./auth/index.js";
import {
  AuthFailureThrottle,
  assertTokenStrength,
  type FailureLimits,
  OperatorCredentials,
  resolveFailureLimits,
} from "./auth/index.js";
import { type MetricsHttpOptions, metricsRoutes } from "./metrics-route.js";
import {
  applyBaseHeaders,
  clientErrorReply,
  MAX_BODY_BYTES,
  rootErrorHandler,
  sendUnrouted,
} from "./pages/index.js";
import { type RunApiOptions, runApiRoutes } from "./runs/index.js";
import {
  assertSlackSigningSecret,
  type SlackInteractionOptions,
  slackInteractionRoutes,
} from "./slack/index.js";

/** Options for {@link createHttpServer}. */
export interface HttpServerOptions {
  redis: Redis | Cluster;
  logger: Logger;
  /** `redis.key_prefix`: failure counters live under it. Default "echo". */
  keyPrefix?: string;
  /**
   * The named operators' tokens (`approvers[].token_env`): the JSON API and `/admin`. Without any,
   * both answer 503 (fail closed); the mailed links still work.
   */
  operators?: OperatorCredentials;
  /**
   * The read-only token (`http.api_token_env`): reads `/metrics`, decides nothing. At least 32
   * characters. Operators' tokens read `/metrics` too.
   */
  metricsToken?: string;
  /** Failed credentials tolerated before 429 (`http.failure_limit`). */
  failureLimits?: Partial<FailureLimits>;
  /** Approval pages and JSON API; omitted = not served. */
  approvals?: ApprovalHttpOptions;
  /** `/metrics` in Prometheus format, behind a bearer token; omitted = not served. */
  metrics?: MetricsHttpOptions;
  /** The `/admin` dashboard, signed in with an operator's own token; omitted = not served. */
  admin?: AdminHttpOptions;
  /** The runs JSON API (`/api/runs/:id`, cancel / retry / rerun), operators' tokens; omitted = not served. */
  runs?: RunApiOptions;
  /**
   * Fastify's `trustProxy` (`http.trust_proxy`: the proxies' addresses or CIDRs): set it behind a
   * reverse proxy so throttling, recorded fetch addresses and logs use the client's address (from
   * X-Forwarded-For, as the trusted proxies pass it), not the proxy's. Default false: the client is
   * whoever connects, and X-Forwarded-For is ignored.
   */
  trustProxy?: boolean | string | readonly string[];
  /**
   * `POST /slack/interactions`, Slack's Approve / Deny clicks (signed with the app's signing
   * secret); omitted = not served (404).
   */
  slack?: SlackInteractionOptions;
}

/** The `redis.key_prefix` behind an approvals key base (`<prefix>:{approvals}:`). */
function prefixOf(base: string | undefined): string | undefined {
  const suffix = ":{approvals}:";
  return base?.endsWith(suffix) ? base.slice(0, -suffix.length) : undefined;
}

function basePathOf(publicUrl: string | undefined): string {
  try {
    return publicUrl ? new URL(publicUrl).pathname.replace(/\/+$/, "") : "";
  } catch {
    return "";
  }
}

/**
 * The HTTP server: health, the approval pages, the approval JSON API, `/metrics` and the `/admin`
 * dashboard, each group in its own scope (who may call what: ARCHITECTURE.md). Every reply — a
 * route's, an unmatched path's, a bad URL's, a body parser's — is ours: our page or JSON, our headers.
 */
export function createHttpServer(options: HttpServerOptions) {
  if (options.metricsToken)
    assertTokenStrength(options.metricsToken, "the metrics token (http.api_token_env)");
  const limits = resolveFailureLimits(options.failureLimits);
  const keyPrefix =
    options.keyPrefix ?? options.admin?.keyPrefix ?? prefixOf(options.approvals?.store.keys.base) ?? "echo";
  const basePath = basePathOf(options.approvals?.publicUrl ?? options.admin?.publicUrl);
  const auth: HttpAuth = {
    operators: options.operators ?? new OperatorCredentials([]),
    metricsToken: options.metricsToken,
    throttle: new AuthFailureThrottle(options.redis, keyPrefix, limits),
  };
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: trustProxyOf(options.trustProxy),
    bodyLimit: MAX_BODY_BYTES,
    clientErrorHandler: clientErrorReply,
    frameworkErrors: (error, request, reply) =>
      sendUnrouted(request, reply, error.statusCode === 414 ? 414 : 400, basePath),
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    applyBaseHeaders(reply);
    return payload;
  });
  app.setNotFoundHandler((request, reply) => sendUnrouted(request, reply, 404, basePath));
  app.setErrorHandler(rootErrorHandler(options.logger, basePath));
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
    const ctx = approvalHttpContext(
      options.approvals,
      options.redis,
      options.logger,
      auth,
      limits,
      keyPrefix,
    );
    app.register(async (scope) => approvalPageRoutes(scope, ctx));
    app.register(async (scope) => approvalApiRoutes(scope, ctx));
  }
  const { metrics } = options;
  if (metrics) app.register(async (scope) => metricsRoutes(scope, metrics, auth, options.logger));
  const { runs } = options;
  if (runs) app.register(async (scope) => runApiRoutes(scope, runs, auth, options.logger));
  const { slack } = options;
  if (slack) {
    assertSlackSigningSecret(slack.signingSecret);
    app.register(async (scope) =>
      slackInteractionRoutes(scope, slack, options.redis, keyPrefix, options.logger, auth.throttle),
    );
  }
  const { admin } = options;
  if (admin) app.register(async (scope) => adminRoutes(scope, admin, options.redis, options.logger, auth));
  return app;
}

/** Fastify's trustProxy for the option: an empty list is off (false), never "trust everyone". */
function trustProxyOf(value: HttpServerOptions["trustProxy"]): boolean | string | string[] {
  if (value === undefined) return false;
  if (typeof value === "boolean" || typeof value === "string") return value;
  return value.length === 0 ? false : [...value];
}
