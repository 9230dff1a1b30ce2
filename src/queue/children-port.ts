import type { ChildFlowRecord, ChildState, ChildStopOutcome, ChildUpdateOutcome } from "../catalog/index.js";
import type { AgentJobPayload } from "./payload.js";

// The child types are the loop tools' (src/catalog/run-control.ts); the port over the queue uses them.
export type { ChildFlowRecord, ChildState, ChildStopOutcome, ChildUpdateOutcome };

/** Starts and reads child runs (implemented over the agent queue by queueChildren). */
export interface ChildrenPort {
  /** Enqueues the child; idempotent (the job id is the child's deterministic run id). */
  start(payload: AgentJobPayload, options?: { priority?: number }): Promise<void>;
  state(runId: string): Promise<ChildState>;
  /** A queued or finished child's payload (undefined once its job is gone). */
  payload(runId: string): Promise<AgentJobPayload | undefined>;
  /** Changes a child that has not started yet (atomically: a started one is left as it is). */
  update(runId: string, change: { task?: string; priority?: number }): Promise<ChildUpdateOutcome>;
  /** Stops a child: removes it while queued, else asks the running one to stop at its next step. */
  stop(runId: string): Promise<ChildStopOutcome>;
  /** Whether someone asked this run to stop (checked by the run loop before every step). */
  stopRequested(runId: string): Promise<boolean>;
  /**
   * Enqueues `steps` (in dependency order) as one BullMQ flow (see flowShape): a step starts only
   * after what it depends on completed, and a failed step fails those after it. Idempotent: the
   * record is written once (the first call wins); a later call starts nothing.
   */
  startFlow(record: ChildFlowRecord, steps: readonly AgentJobPayload[]): Promise<"started" | "exists">;
  flow(id: string): Promise<ChildFlowRecord | undefined>;
}
