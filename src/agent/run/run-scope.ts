import type { ToolPolicyResolution } from "../../policy/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import type { RunDeps } from "./run-contract.js";
import type { RunOutbox } from "./run-outbox.js";
import type { AttemptTrace } from "./run-tracer.js";

/** One run's state that every tool call of it shares. */
export interface RunScope {
  readonly payload: AgentJobPayload;
  readonly jobId: string;
  readonly owner: string;
  readonly policy: ToolPolicyResolution;
  readonly cronAuthorized: boolean;
  readonly deps: RunDeps;
  /** Results already completed in the journal when the attempt started (one read), by key. */
  readonly recorded: ReadonlyMap<string, unknown>;
  /**
   * 0-based ordinal of each delegate_task / spawn_task call of the run, by idempotency key, counted
   * over the journalled model responses so the fan-out limit holds across replays.
   */
  readonly childOrdinals: Map<string, number>;
  /** Where the run's execution audit entries wait until the audit trail has them. */
  readonly outbox: RunOutbox;
  /** Aborts when an operator cancels the run: the call in flight is interrupted, the run stops. */
  readonly signal?: AbortSignal | undefined;
  /** This attempt's trace (spans of its model and tool calls); none: nothing is recorded. */
  readonly trace?: AttemptTrace | undefined;
}
