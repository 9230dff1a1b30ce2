// The read model of runs: what a run did, for the CLI, the HTTP API, /admin and approval pages.
export { ApprovalStoryReader } from "./approval-story-reader.js";
export { DEFAULT_RUN_LIST_LIMIT, MAX_RUN_LIST_LIMIT, RunInspector } from "./run-inspector.js";
export { RUN_END_OUTCOMES } from "./run-outcome.js";
export {
  type DecisionView,
  RUN_OUTCOMES,
  RUN_STATE_FILTERS,
  type RunDetail,
  type RunListFilter,
  type RunPage,
  type RunStateFilter,
  type RunSummary,
} from "./run-view.js";
export { usageText } from "./usage-text.js";
