export { configCheckCommand } from "./config-check.js";
export { checkedConfigScheduleEntries, loadCheckedConfig } from "./config-schedules.js";
export { configShowCommand } from "./config-show.js";
