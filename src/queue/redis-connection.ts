import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";
import { RunnerError } from "../shared/index.js";
import { coalesceWrites } from "./coalesced-writes.js";

/** A connection of the runner: one Redis, or a Redis Cluster (`redis.cluster_nodes`). */
export type RedisConnection = Redis | Cluster;

/** Where the runner's Redis is: a URL, or the seed nodes of a cluster (which win when given). */
export interface RedisTarget {
  /** `redis://` or `rediss://` URL of a single Redis (REDIS_URL wins over `redis.url`). */
  url: string;
  /** `host:port` seed nodes of a Redis Cluster; empty for a single Redis. */
  clusterNodes: readonly string[];
}

/** A `host:port` cluster seed node, split; fails closed on anything else. */
export function parseClusterNode(node: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:\s[\]]+):(\d{1,5})$/.exec(node);
  const port = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new RunnerError(
      "CONFIG_INVALID",
      `redis.cluster_nodes: ${JSON.stringify(node)} is not host:port (e.g. 10.0.0.5:7000)`,
    );
  }
  return { host: match[1].replace(/^\[|\]$/g, ""), port };
}

/**
 * Creates (does not connect when `lazyConnect` is set) the ioredis client for a target: a Cluster
 * over the seed nodes when `clusterNodes` is non-empty — every node gets `options`, and a password or
 * TLS in `url` is applied to the cluster nodes too — otherwise a plain Redis on `url`. Every key the
 * runner writes carries a hash tag (`{echo}` for BullMQ, `{run:<id>}`, `{audit}`, …) so its multi-key
 * scripts stay in one slot. Every connection sends the commands of one event-loop turn in one write
 * ({@link coalesceWrites}).
 */
export function createRedisConnection(target: RedisTarget, options: RedisOptions = {}): RedisConnection {
  const connection = openConnection(target, options);
  coalesceWrites(connection);
  return connection;
}

/**
 * A second connection to the same Redis (or cluster), with the same options and the same
 * coalesced writes: a part that waits differently for Redis (a worker riding out outages) gets its
 * own, so the others keep answering at once.
 */
export function duplicateRedisConnection(connection: RedisConnection): RedisConnection {
  const copy = connection.duplicate();
  coalesceWrites(copy);
  return copy;
}

function openConnection(target: RedisTarget, options: RedisOptions): RedisConnection {
  if (target.clusterNodes.length === 0) return new Redis(target.url, options);
  const seeds = target.clusterNodes.map(parseClusterNode);
  const auth = credentialsOf(target.url);
  const clusterOptions: ClusterOptions = {
    redisOptions: { ...auth, ...options },
    ...(options.lazyConnect ? { lazyConnect: true } : {}),
    ...(options.retryStrategy === undefined
      ? {}
      : { clusterRetryStrategy: (times: number) => options.retryStrategy?.(times) ?? null }),
  };
  return new Cluster(seeds, clusterOptions);
}

/** Username, password and TLS of a Redis URL, for the nodes of a cluster. */
function credentialsOf(url: string): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/** `host:port,…` of the cluster, or the URL, for messages (no credentials). */
export function describeRedisTarget(target: RedisTarget, maskUrl: (url: string) => string): string {
  return target.clusterNodes.length > 0
    ? `the Redis Cluster at ${target.clusterNodes.join(",")}`
    : `Redis at ${maskUrl(target.url)}`;
}
