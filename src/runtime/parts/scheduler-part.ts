import { RunnerMetrics } from "../../metrics/index.js";
import { openAgentQueue } from "../../queue/index.js";
import { type ConfigScheduleEntry, Scheduler, ScheduleStore } from "../../scheduler/index.js";
import { alertReporterFromConfig } from "../alerts-from-config.js";
import { runOwner } from "../owner-notifier-from-config.js";
import type { PartContext } from "../part-context.js";

import type { RunningPart } from "./running-part.js";

/** The scheduler: one leader fires due ticks into the agent queue. */
export function startSchedulerPart(
  ctx: PartContext,
  configSchedules: readonly ConfigScheduleEntry[],
): RunningPart {
  const { config, logger, redis } = ctx;
  const queue = openAgentQueue(redis, config.redis.key_prefix);
  const metrics = new RunnerMetrics({ redis, keyPrefix: config.redis.key_prefix, logger });
  // Missed firings go to the alerts outbox; the worker's sender mails them.
  const alerts = alertReporterFromConfig(config, redis, ctx.env, logger);
  const scheduler = new Scheduler({
    store: new ScheduleStore({ redis, keyPrefix: config.redis.key_prefix }),
    agentQueue: queue,
    configSchedules,
    logger,
    onPass: (report) => metrics.schedulePass(report),
    onMissed: (schedule, missed, note) =>
      alerts.scheduleMissed(
        {
          id: schedule.id,
          agent: `schedule:${schedule.id}`,
          owner: runOwner(config, { userId: schedule.owner, origin: { scheduleId: schedule.id } }),
        },
        missed,
        note,
      ),
  });
  scheduler.start();
  logger.info({ schedules: configSchedules.length }, "scheduler running");
  return {
    async stop() {
      await scheduler.stop();
      await queue.close();
    },
  };
}
