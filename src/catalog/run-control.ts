/**
 * The port through which a tool acts on its own run: start a child run, read a child's state, park
 * the run while it waits, ask a person. The run loop implements it (src/agent/run/run-control.ts)
 * and hands it to the tools that declare they use it (see {@link usesRunControl}) on their
 * execution context; no other tool gets it, and a tool invoked outside a run finds none.
 *
 * Pure types: no I/O, so the port may sit wherever the execution context sits.
 */

/** What a child run's job looks like from its parent. */
export type ChildState =
  | { readonly status: "pending" | "running" | "missing" }
  | { readonly status: "completed"; readonly finalAnswer: string }
  | { readonly status: "failed"; readonly error: string };

/** What became of an update of a queued child. */
export type ChildUpdateOutcome = "updated" | "started" | "missing";
/** What became of a stop request: removed while queued, signalled while running, already over, or unknown. */
export type ChildStopOutcome = "removed" | "signalled" | "finished" | "missing";

/** A workflow's record: who started it and its steps' run ids in the order they run. */
export interface ChildFlowRecord {
  readonly id: string;
  readonly parentRunId: string;
  readonly steps: readonly { readonly step: string; readonly runId: string }[];
}

/** What a child run is asked to do, as the model wrote it (schema-valid). */
export interface ChildSpec {
  readonly task: string;
  readonly allowed_tools?: readonly string[] | undefined;
  readonly max_steps?: number | undefined;
}

/** One step of a flow, in the order it runs. */
export interface FlowStepStart {
  /** The step's name within the flow. */
  readonly step: string;
  /** The step's own run id. */
  readonly runId: string;
  /** Run ids whose answers the step is given (it starts after they completed). */
  readonly dependsOn: readonly string[];
  readonly spec: ChildSpec;
  /** The argument path a refusal of this step names (`steps.2`). */
  readonly field: string;
}

/**
 * Why a child was not started: the run's fan-out limit, the nesting depth, or tools beyond the
 * run's own. The tool reports it as a `denied` result.
 */
export interface ChildRefusal {
  readonly refused: string;
}

/** A person's answer to a question (while nobody has answered, the run is parked instead). */
export type PersonAnswer =
  | { readonly kind: "answered"; readonly text: string; readonly answeredBy: string }
  | { readonly kind: "declined"; readonly reason: string }
  | { readonly kind: "expired" }
  | { readonly kind: "cancelled" };

export interface RunControl {
  /** The run this call belongs to (a child's parent, a flow's owner). */
  readonly runId: string;
  /** The call's idempotency key: ids derived from it name the same child on every replay. */
  readonly callKey: string;
  /**
   * Queues a child run for this call. Its id derives from the run and the call, so a replay queues
   * nothing new; it inherits a subset of this run's tools (never more), the unattended flag and the
   * schedule's grant.
   */
  startChild(spec: ChildSpec, options?: { priority?: number }): Promise<{ id: string } | ChildRefusal>;
  /** Queues `steps` (dependency order) as one flow in which each step waits for what it depends on. */
  startFlow(
    id: string,
    steps: readonly FlowStepStart[],
  ): Promise<{ outcome: "started" | "exists"; record: ChildFlowRecord } | ChildRefusal>;
  childState(id: string): Promise<ChildState>;
  /** The run that started child `id` (null: started by nobody), undefined once its job is gone. */
  childParent(id: string): Promise<string | null | undefined>;
  updateChild(id: string, change: { task?: string; priority?: number }): Promise<ChildUpdateOutcome>;
  stopChild(id: string): Promise<ChildStopOutcome>;
  flow(id: string): Promise<ChildFlowRecord | undefined>;
  /**
   * Parks the run until child `id` ends, holding no worker; the call runs again when the run wakes.
   * Never returns.
   */
  waitForChild(id: string): Promise<never>;
  /**
   * Asks a person `question` and returns the answer; while nobody has answered, parks the run
   * (the question goes out once across replays) and never returns.
   */
  ask(question: string): Promise<PersonAnswer>;
}
