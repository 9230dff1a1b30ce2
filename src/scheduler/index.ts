export { type ConfigScheduleEntry, reconcileConfigSchedules } from "./config-reconcile.js";
export { approverFromApprovals } from "./cronjob-approver.js";
export { createCronjobTool } from "./cronjob-tool.js";
export { HistoryEntry } from "./records.js";
export { type AgentQueuePort, scheduledRunId } from "./run-job.js";
export { CATCH_UP_POLICIES, OVERLAP_POLICIES, parseSchedule, type ScheduleInput } from "./schedule.js";
export { createScheduleRunHooks, ScheduleService, type ScheduleView } from "./schedule-service.js";
export { type DamagedSchedule, ScheduleStore } from "./schedule-store.js";
export { Scheduler } from "./scheduler.js";
