export { type PlannedTick, type PlanTicksInput, planTicks, type TickPlan } from "./catch-up.js";
export {
  type ConfigScheduleEntry,
  type ReconcileReport,
  reconcileConfigSchedules,
  type SkippedSchedule,
} from "./config-reconcile.js";
export { CronTimetable, normaliseCron, timetableFor } from "./cron-timetable.js";
export { approverFromApprovals } from "./cronjob-approver.js";
export {
  CRONJOB_ACTIONS,
  type CronjobAction,
  type CronjobToolDeps,
  createCronjobTool,
} from "./cronjob-tool.js";
export {
  CRON_AUTHORIZATION_REASONS,
  type CronAuthorization,
  type CronAuthorizationReason,
  evaluateGrant,
} from "./grants.js";
export { DEFAULT_SCHEDULER_PREFIX, SchedulerKeys } from "./keys.js";
export { LeaderLock, type LeadershipState } from "./leader-lock.js";
export {
  GRANT_SOURCES,
  GRANT_STATUSES,
  Grant,
  type GrantSource,
  type GrantStatus,
  HISTORY_KINDS,
  HistoryEntry,
  type HistoryKind,
  StoredSchedule,
} from "./records.js";
export {
  AGENT_RUN_JOB_NAME,
  type AgentQueuePort,
  CRON_CHANNEL,
  jitterMs,
  manualRunId,
  scheduledRunId,
  scheduledRunPayload,
} from "./run-job.js";
export {
  CATCH_UP_POLICIES,
  type CatchUpPolicy,
  MAX_CATCH_UP,
  OVERLAP_POLICIES,
  type OverlapPolicy,
  parseSchedule,
  SCHEDULE_ID_PATTERN,
  SCHEDULE_SOURCE_KINDS,
  Schedule,
  type ScheduleInput,
  ScheduleSource,
  type ScheduleSourceKind,
  scheduleSpec,
  scheduleSpecHash,
} from "./schedule.js";
export type { CronjobApproval } from "./schedule-changes.js";
export {
  createScheduleRunHooks,
  type SchedulePatch,
  type ScheduleRunHooks,
  ScheduleService,
  type ScheduleServiceOptions,
  type ScheduleView,
} from "./schedule-service.js";
export {
  HISTORY_MAX,
  ScheduleStore,
  TICK_OUTCOMES,
  type TickClaim,
  type TickOutcome,
} from "./schedule-store.js";
export { type PassReport, Scheduler, type SchedulerOptions } from "./scheduler.js";
export { type FireResult, MAX_QUEUED_TICKS, TickFirer, type TickFirerOptions } from "./tick-firer.js";
export { isKnownTimeZone, resolveWallTime, type WallTimeResolution } from "./time-zone.js";
