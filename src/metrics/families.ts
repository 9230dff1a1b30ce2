/**
 * The closed sets behind every series: counter families, their label names, and the fixed label
 * values. Tool names and schedule results are the only open labels; tool names are capped to the
 * registry's tools (see {@link UNKNOWN_TOOL_LABEL}) so a model inventing names cannot add series.
 */

/**
 * How a run ended for good (all but failed and cancelled are the worker's RunOutcome statuses);
 * cancelled: by an operator or its parent run, on a worker (a run nobody held is not counted here).
 */
export const RUN_OUTCOMES = [
  "completed",
  "max_steps",
  "budget_exhausted",
  "truncated",
  "refused",
  "failed",
  "cancelled",
] as const;
export type RunOutcomeLabel = (typeof RUN_OUTCOMES)[number];

/**
 * Why process groups were ended by the runner rather than exiting on their own: their run ended
 * (completed, failed, parked or cancelled) while they still ran, or a dead worker left them.
 */
export const REAP_REASONS = ["run_ended", "orphan"] as const;
export type ReapReasonLabel = (typeof REAP_REASONS)[number];

/** Counter families kept in Redis: name → label names. */
export const COUNTER_FAMILIES = {
  runs: ["outcome"],
  run_parks: [],
  run_retries: [],
  tool_calls: ["tool", "verdict", "step"],
  tool_executions: ["tool", "outcome"],
  schedule_ticks: ["result"],
  credential_failures: ["kind"],
  model_input_tokens: ["agent", "model"],
  model_output_tokens: ["agent", "model"],
  model_cached_tokens: ["agent", "model"],
  model_cost_usd: ["agent", "model"],
  model_active_seconds: ["agent", "model"],
  model_retries: ["agent", "model"],
  processes_reaped: ["reason"],
  redis_outages: ["condition"],
  redis_outage_seconds: ["condition"],
} as const satisfies Record<string, readonly string[]>;
export type CounterFamily = keyof typeof COUNTER_FAMILIES;
export const COUNTER_FAMILY_NAMES = Object.keys(COUNTER_FAMILIES) as CounterFamily[];

/** Label of a tool name the registry does not know (the model asked for a tool that is not there). */
export const UNKNOWN_TOOL_LABEL = "(unknown)";

/** Queue states reported per queue; `parked` is the part of `delayed` waiting for a person or a child. */
export const QUEUE_STATES = ["waiting", "active", "delayed", "parked", "failed"] as const;
export type QueueStateLabel = (typeof QUEUE_STATES)[number];

/**
 * Upper bounds (seconds) of the approval wait histogram: people answer in seconds to days, so the
 * buckets run from ten seconds to three days.
 */
export const APPROVAL_WAIT_BUCKETS = [
  10, 30, 60, 300, 900, 1800, 3600, 14_400, 43_200, 86_400, 259_200,
] as const;
