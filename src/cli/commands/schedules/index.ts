export { schedulesAddCommand } from "./schedules-add.js";
export { schedulesListCommand } from "./schedules-list.js";
export { schedulesNextCommand } from "./schedules-next.js";
export { schedulesPauseCommand, schedulesResumeCommand } from "./schedules-pause.js";
export { schedulesRemoveCommand } from "./schedules-remove.js";
export { schedulesRevokeCommand } from "./schedules-revoke.js";
export { schedulesRunNowCommand } from "./schedules-run-now.js";
export { agentSpecOf, configScheduleEntry } from "./schedules-shared.js";
export { schedulesShowCommand } from "./schedules-show.js";
