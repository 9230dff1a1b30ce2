import type { Cluster, Redis } from "ioredis";
import type { ApprovalStore, ApprovalStorySource } from "../../approvals/index.js";
import type { Logger } from "../../logging/index.js";
import { RunnerError } from "../../shared/index.js";
import type { HttpAuth } from "../auth/index.js";
import { DEFAULT_FAILURE_LIMITS, type FailureLimits, LinkFailures } from "../auth/index.js";
import type { GrantsPort } from "./grant-api.js";

/** Options of the approval pages and JSON API (see {@link HttpServerOptions.approvals}). */
export interface ApprovalHttpOptions {
  store: ApprovalStore;
  /** `http.public_url`: its path (if any) prefixes the form action and the stylesheet link. */
  publicUrl: string;
  /**
   * Reads the run's story (task, the agent's words, earlier steps) when a page renders. Omitted:
   * the pages show the call without it.
   */
  story?: ApprovalStorySource;
  /** The allow-always grants the JSON API lists and revokes; omitted = those routes are not served. */
  grants?: GrantsPort;
}

/** What the approval route plugins share. */
export interface ApprovalHttpContext extends ApprovalHttpOptions {
  redis: Redis | Cluster;
  logger: Logger;
  /** Path part of the public URL without a trailing slash ("" at the root). */
  basePath: string;
  /** Operators' tokens and the throttle of failed ones (the JSON API). */
  auth: HttpAuth | undefined;
  /** Failed link tokens per request and per token before 429. */
  linkFailures: LinkFailures;
}

/** Builds the shared context, checking the options. */
export function approvalHttpContext(
  options: ApprovalHttpOptions,
  redis: Redis | Cluster,
  logger: Logger,
  auth?: HttpAuth,
  limits: FailureLimits = DEFAULT_FAILURE_LIMITS,
  keyPrefix = "echo",
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
  return {
    ...options,
    redis,
    logger,
    basePath: url.pathname.replace(/\/+$/, ""),
    auth,
    linkFailures: new LinkFailures(redis, keyPrefix, limits),
  };
}
