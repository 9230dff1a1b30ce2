import type { EchoRunnerConfig } from "../config/index.js";
import type { Logger } from "../logging/index.js";
import { type OutageRider, type RedisConnection, rideRedisOutages } from "../queue/index.js";
import { type DeepReadonly, describeRedisOutage, type RedisOutageCondition } from "../shared/index.js";

/** Options of {@link rideRedisOutagesFromConfig}. */
export interface RedisOutageWiring {
  /** Counts an outage once it is over (RunnerMetrics.redisOutage). */
  onOver?: (condition: RedisOutageCondition, waitedSeconds: number) => void;
}

/**
 * Makes a worker's connection wait out a Redis that refuses commands for up to
 * `execution.redis_outage_seconds`, so runs pause instead of spending their attempts (see
 * `rideRedisOutages`). Logs one line when an outage starts, one when it ends or the wait runs out.
 */
export function rideRedisOutagesFromConfig(
  redis: RedisConnection,
  config: DeepReadonly<EchoRunnerConfig>,
  logger: Logger,
  wiring: RedisOutageWiring = {},
): OutageRider {
  const seconds = config.execution.redis_outage_seconds;
  return rideRedisOutages(redis, {
    budgetMs: seconds * 1000,
    onStart: (outage) => {
      const { what, fix } = describeRedisOutage(outage.condition);
      const waiting =
        outage.condition === "connection"
          ? "commands are held until it is back"
          : seconds > 0
            ? `runs wait up to ${seconds} s (execution.redis_outage_seconds) without spending their attempts`
            : "execution.redis_outage_seconds is 0: runs fail their attempt";
      logger.warn({ condition: outage.condition, reply: outage.message }, `${what}: ${waiting}; fix: ${fix}`);
    },
    onEnd: (outage, waitedMs) => {
      const waitedSeconds = Math.round(waitedMs / 100) / 10;
      logger.info(
        { condition: outage.condition, waitedSeconds },
        `Redis takes commands again after ${waitedSeconds} s (${outage.condition}): runs carry on`,
      );
      wiring.onOver?.(outage.condition, waitedSeconds);
    },
    onGiveUp: (outage) => {
      logger.error(
        { condition: outage.condition, reply: outage.message },
        `Redis has refused commands for ${seconds} s (execution.redis_outage_seconds; ${outage.condition}): runs now fail their attempt and are retried with back-off; fix: ${describeRedisOutage(outage.condition).fix}`,
      );
    },
  });
}
