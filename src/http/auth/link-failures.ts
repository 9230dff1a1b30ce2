import type { Cluster, Redis } from "ioredis";
import { MetricsKeys } from "../../metrics/index.js";
import { sha256Hex } from "../../shared/index.js";
import { type FailureCounter, FailureCounters, type FailureLimits } from "./failure-throttle.js";

/** Invalid link attempts kept in the log (newest first). */
export const LINK_FAILURE_LOG_CAP = 500;
/** How long the log of invalid attempts is kept after its newest entry, ms: 7 days. */
const LOG_TTL_MS = 7 * 24 * 3600 * 1000;

/** One invalid attempt on an approval link (wrong, used-up-shape or unknown token, unknown id). */
export interface LinkFailureEntry {
  at: number;
  method: string;
  ip: string;
  userAgent: string;
  /** The request id as presented when it has an approval id's shape, else "(malformed)". */
  id: string;
}

/**
 * Failed approval-link tokens. They are counted per request id and per presented token — never per
 * address, so a flood of junk from the address a real approver shares (a proxy, an office NAT)
 * cannot lock them out: a valid token is checked first and is never throttled. While a request's (or
 * a token's) failures are at the limit, further failures get 429 instead of the invalid-link page.
 * Each failure is written to a separate bounded log with its address (not to the request's fetch
 * record, which only valid tokens reach) and counted in `/metrics`.
 */
export class LinkFailures {
  readonly #redis: Redis | Cluster;
  readonly #counters: FailureCounters;
  readonly #base: string;
  readonly #metrics: MetricsKeys;
  readonly #limit: number;

  constructor(redis: Redis | Cluster, keyPrefix: string, limits: FailureLimits) {
    this.#redis = redis;
    this.#counters = new FailureCounters(redis, limits.windowMs);
    this.#base = `${keyPrefix}:{http}:linkfail:`;
    this.#metrics = new MetricsKeys(keyPrefix);
    this.#limit = limits.perLink;
  }

  #of(id: string, token: unknown): FailureCounter[] {
    const counters = [{ key: `${this.#base}req:${sha256Hex(id).slice(0, 32)}`, limit: this.#limit }];
    if (typeof token === "string" && token.length > 0) {
      counters.push({ key: `${this.#base}tok:${sha256Hex(token).slice(0, 32)}`, limit: this.#limit });
    }
    return counters;
  }

  /**
   * Counts one failed attempt and logs it; returns ms until failures on this request or token are
   * accepted again (0: answer the plain invalid-link page, else 429 with retry-after).
   */
  async fail(id: string, token: unknown, entry: LinkFailureEntry): Promise<number> {
    const counters = this.#of(id, token);
    const wait = await this.#counters.retryAfterMs(counters);
    await Promise.all([
      this.#counters.fail(counters),
      this.#redis
        .multi()
        .lpush(`${this.#base}log`, JSON.stringify(entry))
        .ltrim(`${this.#base}log`, 0, LINK_FAILURE_LOG_CAP - 1)
        .pexpire(`${this.#base}log`, LOG_TTL_MS)
        .exec(),
      this.#redis.hincrby(this.#metrics.counter("credential_failures"), JSON.stringify(["link"]), 1),
    ]);
    return wait;
  }

  /** The newest invalid attempts, newest first. */
  async recent(limit = 50): Promise<LinkFailureEntry[]> {
    const raw = await this.#redis.lrange(`${this.#base}log`, 0, Math.max(0, limit - 1));
    return raw.map((r) => JSON.parse(r) as LinkFailureEntry);
  }
}
