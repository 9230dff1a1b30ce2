import { isIPv6 } from "node:net";
import type { Cluster, Redis } from "ioredis";
import { luaScript } from "../../lua/index.js";
import { MetricsKeys } from "../../metrics/index.js";
import { RunnerError } from "../../shared/index.js";

/** How many failed credentials are tolerated before 429 (`http.failure_limit`). */
export interface FailureLimits {
  /** Length of one counting window, ms. Default 60 000. */
  windowMs: number;
  /** Failed bearer tokens and sign-ins per client address per window. Default 10. */
  perSource: number;
  /** Failed bearer tokens and sign-ins from all addresses together per window. Default 300. */
  global: number;
  /** Failed approval-link tokens per request id, and per presented token, per window. Default 20. */
  perLink: number;
}

/** Defaults of {@link FailureLimits} (config/default.yaml `http.failure_limit`). */
export const DEFAULT_FAILURE_LIMITS: FailureLimits = {
  windowMs: 60_000,
  perSource: 10,
  global: 300,
  perLink: 20,
};

/** Checks limits: whole numbers >= 1, a window of at least one second. */
export function resolveFailureLimits(limits: Partial<FailureLimits> = {}): FailureLimits {
  const resolved = { ...DEFAULT_FAILURE_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1 || (name === "windowMs" && value < 1000)) {
      throw new RunnerError(
        "CONFIG_INVALID",
        `failure limit ${name} must be a whole number >= 1 (windowMs >= 1000), got ${String(value)}`,
      );
    }
  }
  return resolved;
}

// KEYS: counters; ARGV: 1 limit of each key in order... Answers the longest time left (ms) of any
// counter at or over its limit, or 0. Read-only: checking costs nothing on the counters.
const BLOCKED = luaScript(import.meta.url, "failuresBlocked.lua").lua;

// KEYS: counters; ARGV: 1 window ms. Counts one failure on every counter; a new counter starts a window.
const COUNT = luaScript(import.meta.url, "failuresCount.lua").lua;

/** One counter and its limit. */
export interface FailureCounter {
  key: string;
  limit: number;
}

/**
 * Fixed-window failure counters in Redis, shared by every HTTP process (so more processes do not
 * multiply the allowance). Only failures are counted; a caller asks {@link retryAfterMs} and answers
 * 429 while any counter it names is at its limit. Keys should share a hash tag (Redis Cluster).
 */
export class FailureCounters {
  readonly #redis: Redis | Cluster;
  readonly windowMs: number;

  constructor(redis: Redis | Cluster, windowMs: number) {
    this.#redis = redis;
    this.windowMs = windowMs;
  }

  /** Ms until the fullest of `counters` has room again, or 0 when none is at its limit. */
  async retryAfterMs(counters: readonly FailureCounter[]): Promise<number> {
    if (counters.length === 0) return 0;
    const wait = await this.#redis.eval(
      BLOCKED,
      counters.length,
      ...counters.map((c) => c.key),
      ...counters.map((c) => c.limit),
    );
    return Number(wait) || 0;
  }

  /** Counts one failure on each of `counters`. */
  async fail(counters: readonly FailureCounter[]): Promise<void> {
    if (counters.length === 0) return;
    await this.#redis.eval(COUNT, counters.length, ...counters.map((c) => c.key), this.windowMs);
  }
}

/**
 * Failed bearer tokens (`/api`, `/metrics`) and `/admin` sign-ins, counted per client address and
 * over all addresses. Callers check {@link retryAfterMs} before any other work and count a failure
 * with {@link fail}; a successful credential is never counted.
 */
export class AuthFailureThrottle {
  readonly #redis: Redis | Cluster;
  readonly #counters: FailureCounters;
  readonly #base: string;
  readonly #metrics: MetricsKeys;
  readonly limits: FailureLimits;

  constructor(redis: Redis | Cluster, keyPrefix: string, limits: FailureLimits) {
    this.#redis = redis;
    this.#counters = new FailureCounters(redis, limits.windowMs);
    this.#base = `${keyPrefix}:{http}:authfail:`;
    this.#metrics = new MetricsKeys(keyPrefix);
    this.limits = limits;
  }

  #of(source: string): FailureCounter[] {
    return [
      { key: `${this.#base}src:${sourceOf(source)}`, limit: this.limits.perSource },
      { key: `${this.#base}all`, limit: this.limits.global },
    ];
  }

  /** Ms until `source` may try again (its own failures or everyone's), or 0. */
  retryAfterMs(source: string): Promise<number> {
    return this.#counters.retryAfterMs(this.#of(source));
  }

  /**
   * Counts one failed credential (`kind`: bearer, sign_in, or a Slack request whose signature or
   * timestamp failed) from `source`, also in `/metrics`.
   */
  async fail(source: string, kind: "bearer" | "sign_in" | "slack_signature" = "bearer"): Promise<void> {
    await Promise.all([
      this.#counters.fail(this.#of(source)),
      this.#redis.hincrby(this.#metrics.counter("credential_failures"), JSON.stringify([kind]), 1),
    ]);
  }
}

/**
 * The source a failure is counted against: an IPv4 address (also IPv4-mapped IPv6) whole, an IPv6
 * address by its /64 — one host usually holds a whole /64, so counting single IPv6 addresses would
 * let it rotate through 2^64 of them. Anything else (a socket path, garbage) as given, cut to 64.
 */
export function sourceOf(ip: string): string {
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (v4) return v4[1]!;
  if (!isIPv6(ip)) return ip.slice(0, 64);
  const [head = "", tail] = ip.toLowerCase().split("%")[0]!.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [
    ...headGroups,
    ...Array(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill("0"),
    ...tailGroups,
  ];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** Seconds for a `retry-after` header (at least 1). */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}
