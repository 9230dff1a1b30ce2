import { Cluster, type Redis } from "ioredis";
import type { RedisConnection } from "./redis-connection.js";

/**
 * The `hash-max-listpack-value` the local redis-server and docker-compose.yml set. Request-sized
 * hashes (BullMQ jobs, approval records, journal entries) hold values over Redis's default 64
 * bytes; with this limit they stay in the compact encoding, about 1.4 KB less per parked run
 * (docs/BENCHMARKS.md "Redis memory per parked run"). It costs memory, never correctness.
 */
export const COMPACT_HASH_VALUE = 1024;

/** What to run on a Redis whose limit is lower. */
export const COMPACT_HASH_FIX = `CONFIG SET hash-max-listpack-value ${COMPACT_HASH_VALUE}`;

/** `hash-max-listpack-value` of one server, or undefined where CONFIG is disabled (managed services). */
export async function hashListpackValue(redis: Redis): Promise<string | undefined> {
  try {
    const reply = (await redis.call("CONFIG", "GET", "hash-max-listpack-value")) as string[];
    return reply[1];
  } catch {
    return undefined;
  }
}

/**
 * The servers of a connection (each master of a cluster) whose `hash-max-listpack-value` is below
 * {@link COMPACT_HASH_VALUE}, with their value; empty when all are at it or CONFIG is disabled.
 */
export async function lowHashListpackValues(
  connection: RedisConnection,
): Promise<{ server: string; value: string }[]> {
  const servers: Redis[] = connection instanceof Cluster ? connection.nodes("master") : [connection];
  const low: { server: string; value: string }[] = [];
  for (const server of servers) {
    const value = await hashListpackValue(server);
    if (value !== undefined && !(Number(value) >= COMPACT_HASH_VALUE)) {
      low.push({ server: `${server.options.host}:${server.options.port}`, value });
    }
  }
  return low;
}
