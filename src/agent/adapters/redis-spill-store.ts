import type { Cluster, Redis } from "ioredis";
import { sha256Hex } from "../../shared/index.js";
import type { SpillStore } from "../run/ports.js";

/** Spilled results in Redis: one string per result under the run's hash tag, expiring with the journal. */
export function redisSpillStore(
  redis: Redis | Cluster,
  keyPrefix: string,
  retentionMs: number,
): SpillStore & {
  read(id: string, offset: number, length: number): Promise<{ text: string; total: number } | undefined>;
} {
  const keyOf = (id: string) => {
    const [runId, digest] = id.split("/");
    return `${keyPrefix}:{run:${runId}}:spill:${digest}`;
  };
  return {
    async put(runId, key, text) {
      const id = `${runId}/${sha256Hex(key).slice(0, 24)}`;
      await redis.set(keyOf(id), text, "PX", retentionMs);
      return id;
    },
    async read(id, offset, length) {
      if (!/^[^/{}]+\/[0-9a-f]{24}$/.test(id)) return undefined;
      const key = keyOf(id);
      const total = await redis.strlen(key);
      if (total === 0) return undefined;
      const text = await redis.getrange(key, offset, offset + length - 1);
      return { text, total };
    },
  };
}
