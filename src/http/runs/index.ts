export {
  actionStatus,
  performRunAction,
  RUN_ACTIONS,
  type RunAction,
  type RunActionReply,
  type RunActionsPort,
} from "./run-actions.js";
export { type RunApiOptions, runApiRoutes } from "./run-api.js";
export { runListFilterOf } from "./run-list-query.js";
