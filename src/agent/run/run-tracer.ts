import type { ToolResult } from "../../catalog/index.js";
import type { GateDecision } from "../../gate/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import type { ModelResponse } from "../model/model-client.js";

/**
 * How the run loop tells a tracer what it does: one port, so the loop never depends on a tracing
 * SDK. The composition root gives a worker the OpenTelemetry implementation (src/telemetry) when an
 * OTLP endpoint is configured, and {@link NOOP_RUN_TRACER} otherwise. Nothing passed here carries a
 * tool's arguments, a prompt or a model's text: only names, counts, keys (hashes) and decisions.
 */
export interface RunTracer {
  /** Whether spans leave the process (false for the no-op tracer). */
  readonly exporting: boolean;
  /** One attempt of a run: from the job's start (or its resume after a park) to its end or park. */
  attempt(payload: AgentJobPayload, start: AttemptStart): AttemptTrace;
  /** The run ended for good (completed, failed without further retries, cancelled while held). */
  runEnded(payload: AgentJobPayload, end: RunTraceEnd): void;
  /** Sends what is still buffered and stops; called once, on graceful shutdown. */
  shutdown(): Promise<void>;
}

/** What an attempt knows when it starts. */
export interface AttemptStart {
  /** The journal already had records: an earlier attempt parked, crashed or was retried. */
  readonly resumed: boolean;
  /** Model steps and tool calls the journal already holds (replayed, not done again). */
  readonly journalled: number;
}

/** How a run can end for good, as its run span says (`echo_runner.run.status`). */
export const RUN_TRACE_END_STATUSES = ["completed", "failed", "cancelled"] as const;
export type RunTraceEndStatus = (typeof RUN_TRACE_END_STATUSES)[number];

/** How a run ended for good. */
export interface RunTraceEnd {
  readonly status: RunTraceEndStatus;
  /** The RunnerError code of a failure; null when the error had none. */
  readonly code?: string | null;
}

/** How one attempt ended. */
export type AttemptEnd =
  | { readonly kind: "returned"; readonly status: string; readonly steps: number; readonly toolCalls: number }
  | { readonly kind: "parked"; readonly wakeAt: number }
  | { readonly kind: "failed"; readonly error: unknown };

/** One attempt's trace. */
export interface AttemptTrace {
  /** A fresh model call of step `step` to the model named `model` in config `models`. */
  modelCall(step: number, model: string): ModelCallTrace;
  /** One tool call the model asked for (also one replayed from the journal). */
  toolCall(call: ToolCallStart): ToolCallTrace;
  /** The decision about the call with this idempotency key (every decision is reported, see plan-call). */
  decided(idempotencyKey: string, decision: GateDecision): void;
  end(how: AttemptEnd): void;
}

/** What a tool call's trace starts with. */
export interface ToolCallStart {
  readonly name: string;
  /** The call id the model chose. */
  readonly callId: string;
  readonly callIndex: number;
  /** The call's idempotency key (a hash over trace, tool, index and arguments). */
  readonly idempotencyKey: string;
}

/** One fresh model call. */
export interface ModelCallTrace {
  end(response: ModelResponse): void;
  fail(error: unknown): void;
}

/** One tool call. */
export interface ToolCallTrace {
  decided(decision: GateDecision): void;
  /** `replay`: the journal had the result, nothing ran. */
  end(result: ToolResult, replay: boolean): void;
  /** The call waits (a person's approval, a child run, a lapsing claim): the run parks. */
  parked(wakeAt: number): void;
  fail(error: unknown): void;
}

/** A model call's trace that records nothing. */
export const NOOP_MODEL_CALL: ModelCallTrace = { end() {}, fail() {} };
/** A tool call's trace that records nothing. */
export const NOOP_TOOL_CALL: ToolCallTrace = { decided() {}, end() {}, parked() {}, fail() {} };
const NOOP_ATTEMPT: AttemptTrace = {
  modelCall: () => NOOP_MODEL_CALL,
  toolCall: () => NOOP_TOOL_CALL,
  decided() {},
  end() {},
};

/** The tracer of a worker with no OTLP endpoint: records nothing, costs a call. */
export const NOOP_RUN_TRACER: RunTracer = {
  exporting: false,
  attempt: () => NOOP_ATTEMPT,
  runEnded() {},
  shutdown: async () => undefined,
};

/** Runs a fresh model call inside its trace. */
export async function tracedModelCall(
  trace: ModelCallTrace,
  call: () => Promise<ModelResponse>,
): Promise<ModelResponse> {
  try {
    const response = await call();
    trace.end(response);
    return response;
  } catch (err) {
    trace.fail(err);
    throw err;
  }
}
