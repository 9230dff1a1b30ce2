import type { Redis } from "ioredis";
import { type AgentQueue, openAgentQueue } from "../queue/index.js";
import { ManualClock } from "../shared/index.js";
import type { ConfigScheduleEntry } from "./config-reconcile.js";
import type { ScheduleInput } from "./schedule.js";
import { ScheduleService } from "./schedule-service.js";
import { ScheduleStore } from "./schedule-store.js";
import { Scheduler, type SchedulerOptions } from "./scheduler.js";

/**
 * Test support (used only by this folder's tests): a scheduler, a service and the `agent` queue on
 * a real Redis under a test's own prefix, with a manual clock.
 */
export interface SchedulerFixture {
  prefix: string;
  clock: ManualClock;
  store: ScheduleStore;
  service: ScheduleService;
  queue: AgentQueue;
  scheduler(options?: Partial<SchedulerOptions>): Scheduler;
  /** Ids of every job on the agent queue, in any state, sorted. */
  jobIds(): Promise<string[]>;
  close(): Promise<void>;
}

/** Builds a fixture on `redis` (one connection per fixture: two fixtures = two processes' worth). */
export function schedulerFixture(redis: Redis, prefix: string, start: number): SchedulerFixture {
  const clock = new ManualClock(start);
  const store = new ScheduleStore({ redis, keyPrefix: prefix });
  const queue = openAgentQueue(redis, prefix);
  const service = new ScheduleService({ store, agentQueue: queue, clock });
  return {
    prefix,
    clock,
    store,
    service,
    queue,
    scheduler: (options = {}) =>
      new Scheduler({ store, agentQueue: queue, clock, lockLeaseMs: 60_000, ...options }),
    async jobIds() {
      const jobs = await queue.getJobs([
        "waiting",
        "delayed",
        "active",
        "completed",
        "failed",
        "prioritized",
      ]);
      return jobs.map((job) => job.id ?? "").sort();
    },
    async close() {
      await queue.close();
    },
  };
}

/** A valid cronjob-sourced schedule input; `patch` overrides. */
export function scheduleInput(patch: Partial<ScheduleInput> = {}): ScheduleInput {
  return {
    v: 1,
    id: "nightly",
    cron: "0 * * * *",
    timezone: "UTC",
    agent: { model: "scripted", task: "triage the inbox", maxSteps: 5, workspace: "/tmp/ws" },
    owner: "alice",
    source: { kind: "cronjob" },
    ...patch,
  };
}

/** A config entry for reconcile tests. */
export function configEntry(
  patch: Partial<ScheduleInput> = {},
  authorized = false,
  file = "/etc/echo-runner/config.yaml",
): ConfigScheduleEntry {
  return { schedule: scheduleInput({ source: { kind: "config", file }, ...patch }), authorized };
}
