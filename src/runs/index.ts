// The read model of runs: what a run did, for the CLI, the HTTP API, /admin and approval pages.
export {
  ApprovalStoryReader,
  type ApprovalStoryReaderOptions,
  STORY_TEXT_LIMIT,
} from "./approval-story-reader.js";
export { clipText, clipValue, DEFAULT_VIEW_MAX_CHARS } from "./clip.js";
export {
  DEFAULT_RUN_LIST_LIMIT,
  MAX_RUN_LIST_LIMIT,
  RunInspector,
  type RunInspectorOptions,
} from "./run-inspector.js";
export { RUN_END_OUTCOMES, type RunEndOutcome } from "./run-outcome.js";
export {
  type ApprovalView,
  type DecisionView,
  JOURNAL_VIEW_STATUSES,
  type JournalEntryView,
  type JournalViewStatus,
  type OperatorActionView,
  type ParkedApproval,
  RUN_JOB_STATES,
  RUN_OUTCOMES,
  RUN_STATE_FILTERS,
  type RunDetail,
  type RunJobState,
  type RunListFilter,
  type RunOutcomeKind,
  type RunPage,
  type RunStateFilter,
  type RunSummary,
  type RunUsageView,
  type TranscriptStep,
  type TranscriptToolCall,
} from "./run-view.js";
export { usageText } from "./usage-text.js";
