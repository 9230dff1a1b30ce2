import type { Cluster, Redis } from "ioredis";
import type { EchoRunnerConfig } from "../config/index.js";
import type { Logger } from "../logging/index.js";
import { type DeepReadonly, RunnerError } from "../shared/index.js";

/**
 * What a machine crash (power loss, a VM reset: the OS's unsynced writes lost, not only a process)
 * can do to a Redis with these persistence settings, or undefined when nothing acknowledged is lost.
 * A journal claim acknowledged and then lost lets a replay run the call again.
 */
export function crashLoss(
  appendonly: string | undefined,
  appendfsync: string | undefined,
): string | undefined {
  if (appendonly !== "yes") {
    return "AOF is off: a crash loses every write since the last snapshot, so tool calls journalled since may run again";
  }
  if (appendfsync === "always") return undefined;
  if (appendfsync === "everysec")
    return "appendfsync everysec: a machine crash can lose about the last second of acknowledged writes, so a tool call journalled in it may run again";
  return `appendfsync ${appendfsync ?? "unknown"}: a machine crash can lose up to ~30 s of acknowledged writes, so tool calls journalled in them may run again`;
}

async function settingsOf(node: Redis): Promise<{ appendonly?: string; appendfsync?: string } | undefined> {
  try {
    const reply = (await node.config("GET", "appendonly", "appendfsync")) as string[];
    const map = new Map<string, string>();
    for (let i = 0; i + 1 < reply.length; i += 2) map.set(reply[i] as string, reply[i + 1] as string);
    return {
      ...(map.has("appendonly") ? { appendonly: map.get("appendonly") as string } : {}),
      ...(map.has("appendfsync") ? { appendfsync: map.get("appendfsync") as string } : {}),
    };
  } catch {
    // Managed services often refuse CONFIG: the settings cannot be known.
    return undefined;
  }
}

/**
 * Reads the Redis's persistence settings at start (every master of a cluster): with anything that
 * can lose acknowledged writes in a machine crash, one warning line says what; under
 * `execution.durability: strict` the start is refused instead (also when the settings cannot be read).
 */
export async function checkRedisDurability(
  redis: Redis | Cluster,
  config: DeepReadonly<EchoRunnerConfig>,
  logger: Logger,
): Promise<void> {
  const nodes: Redis[] =
    "nodes" in redis && typeof redis.nodes === "function"
      ? (redis as Cluster).nodes("master")
      : [redis as Redis];
  const problems: string[] = [];
  for (const node of nodes) {
    const settings = await settingsOf(node);
    const where = `${node.options.host ?? "redis"}:${node.options.port ?? 6379}`;
    if (settings === undefined) {
      problems.push(
        `${where}: CONFIG GET appendonly appendfsync is refused, so its crash safety cannot be checked`,
      );
      continue;
    }
    const loss = crashLoss(settings.appendonly, settings.appendfsync);
    if (loss) problems.push(`${where}: ${loss}`);
  }
  if (problems.length === 0) return;
  const fix =
    "set `appendonly yes` and `appendfsync always` in redis.conf (echo-runner start's own Redis does)";
  if (config.execution.durability === "strict") {
    throw new RunnerError(
      "REDIS_UNAVAILABLE",
      `execution.durability is strict, but ${problems.join("; ")}; ${fix}, or set execution.durability: standard to run with the risk`,
    );
  }
  logger.warn(
    { redis: problems, fix },
    `Redis may lose acknowledged writes in a machine crash: ${problems.join("; ")}`,
  );
}
