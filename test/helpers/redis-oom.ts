import type { Redis } from "ioredis";

/** A Redis filled to its `maxmemory`: writes are refused with OOM until {@link RedisOom.release}. */
export interface RedisOom {
  /** Deletes the filler and lifts the limit: Redis accepts writes again. */
  release(): Promise<void>;
}

const FILLER_BYTES = 64 * 1024;

/**
 * Sets `maxmemory` a little above what the server uses now (policy noeviction, as the runner wants
 * it) and writes filler keys under `fillerPrefix` until Redis answers OOM, then holds the limit just
 * under the memory used. DEL is allowed under OOM, so `release` works through the same client.
 */
export async function fillRedisToOom(
  client: Redis,
  fillerPrefix: string,
  headroomBytes = 4 << 20,
): Promise<RedisOom> {
  const info = await client.info("memory");
  const used = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? "0");
  await client.config("SET", "maxmemory-policy", "noeviction");
  await client.config("SET", "maxmemory", String(used + headroomBytes));
  const value = "x".repeat(FILLER_BYTES);
  const keys: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const key = `${fillerPrefix}:${i}`;
    try {
      await client.set(key, value);
      keys.push(key);
    } catch (err) {
      if (!(err as Error).message.startsWith("OOM ")) throw err;
      // Used memory hovers at the limit (a refused write frees its buffers, client and AOF buffers
      // come and go, and small writes would then pass): a limit well under what is used now keeps
      // every write refused until release, whatever the buffers do meanwhile.
      const full = Number(/used_memory:(\d+)/.exec(await client.info("memory"))?.[1] ?? "0");
      await client.config("SET", "maxmemory", String(Math.floor(full / 2)));
      return {
        async release() {
          for (let j = 0; j < keys.length; j += 500) await client.del(...keys.slice(j, j + 500));
          await client.config("SET", "maxmemory", "0");
        },
      };
    }
  }
  throw new Error(`Redis took ${keys.length} filler keys without refusing one: is maxmemory ignored?`);
}
