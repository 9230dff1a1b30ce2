export { jobsCancelCommand, jobsRerunCommand, jobsRetryCommand } from "./jobs-actions.js";
export { jobsListCommand } from "./jobs-list.js";
export { jobsShowCommand } from "./jobs-show.js";
