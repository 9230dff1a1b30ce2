import type { RateLimitPluginOptions } from "@fastify/rate-limit";
import type { Cluster, Redis } from "ioredis";
import type { ApprovalRecord, ApprovalStore } from "../approvals/index.js";
import type { Logger } from "../logging/index.js";
import { RunnerError } from "../shared/index.js";

/** Options of the approval pages and JSON API (see {@link HttpServerOptions.approvals}). */
export interface ApprovalHttpOptions {
  store: ApprovalStore;
  /** `http.public_url`: its path (if any) prefixes the form action and the stylesheet link. */
  publicUrl: string;
  /**
   * Bearer token of the JSON API (from the env var named by `http.api_token_env`). Undefined or
   * empty: the API answers 503 to everything (fail closed), the pages still work.
   */
  apiToken?: string;
  /**
   * Called after a decision settles a request (approved or denied), with the final record. The
   * worker promotes the parked job here. A failure is logged; the decision stands and the job still
   * wakes at its deadline or from the store's events stream.
   */
  onDecided?: (record: ApprovalRecord) => void | Promise<void>;
  /** Decision POSTs allowed per client address per window. Default 20. */
  decisionRateMax?: number;
  /** The rate-limit window, ms. Default 60 000. */
  decisionRateWindowMs?: number;
}

/** What the approval route plugins share. */
export interface ApprovalHttpContext extends ApprovalHttpOptions {
  redis: Redis | Cluster;
  logger: Logger;
  /** Path part of the public URL without a trailing slash ("" at the root). */
  basePath: string;
}

/** Builds the shared context, checking the options. */
export function approvalHttpContext(
  options: ApprovalHttpOptions,
  redis: Redis | Cluster,
  logger: Logger,
): ApprovalHttpContext {
  let url: URL;
  try {
    url = new URL(options.publicUrl);
  } catch {
    throw new RunnerError(
      "APPROVAL_INPUT_INVALID",
      `public url is not a URL: ${JSON.stringify(options.publicUrl)}`,
    );
  }
  const max = options.decisionRateMax ?? 20;
  const windowMs = options.decisionRateWindowMs ?? 60_000;
  if (!Number.isSafeInteger(max) || max < 1 || !Number.isSafeInteger(windowMs) || windowMs < 1000) {
    throw new RunnerError(
      "APPROVAL_INPUT_INVALID",
      `decision rate limit must be >= 1 request per window of >= 1000 ms, got ${max} per ${windowMs} ms`,
    );
  }
  return { ...options, redis, logger, basePath: url.pathname.replace(/\/+$/, "") };
}

/**
 * The rate-limit plugin's options: counters in Redis (shared by every HTTP process, so adding
 * processes does not multiply the allowance) under the approvals prefix, not applied globally.
 * Storage errors are not skipped: without a counter the endpoint refuses rather than runs unlimited.
 */
export function rateLimitPluginOptions(
  ctx: ApprovalHttpContext,
  scope: "page" | "api",
): RateLimitPluginOptions {
  return {
    global: false,
    redis: ctx.redis,
    nameSpace: `${ctx.store.keys.base}rate:${scope}:`,
    skipOnError: false,
  };
}

/** Per-route limit of the decision endpoints. */
export function decisionRateLimit(ctx: ApprovalHttpContext): { max: number; timeWindow: number } {
  return { max: ctx.decisionRateMax ?? 20, timeWindow: ctx.decisionRateWindowMs ?? 60_000 };
}

/** Runs the onDecided hook, logging (never surfacing) its failure. */
export async function reportDecided(ctx: ApprovalHttpContext, record: ApprovalRecord): Promise<void> {
  if (!ctx.onDecided) return;
  try {
    await ctx.onDecided(record);
  } catch (err) {
    ctx.logger.error(
      { err, approvalId: record.id },
      "onDecided hook failed; the job wakes at its deadline instead",
    );
  }
}
