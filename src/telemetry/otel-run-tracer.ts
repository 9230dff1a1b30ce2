import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { ATTR_ERROR_TYPE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from "@opentelemetry/semantic-conventions";
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "@opentelemetry/semantic-conventions/incubating";
import type {
  AttemptEnd,
  AttemptStart,
  AttemptTrace,
  ModelCallTrace,
  RunTraceEnd,
  RunTracer,
  ToolCallStart,
  ToolCallTrace,
} from "../agent/index.js";
import type { AgentJobPayload } from "../queue/index.js";
import { assertNever, isRunnerError, otelTraceId } from "../shared/index.js";
import { runSpanId, type ScriptedIds } from "./span-ids.js";

/** How a model of config `models` is described on its spans. */
export interface ModelDescription {
  /** `gen_ai.provider.name`: openai, anthropic, or echo_runner.scripted. */
  readonly provider: string;
  /** `gen_ai.request.model`: the provider's model name (config `models.<name>.model`). */
  readonly model: string;
  readonly serverAddress?: string;
  readonly serverPort?: number;
}

/** Looks a model up by its name in config `models`. */
export type DescribeModel = (name: string) => ModelDescription | undefined;

/** Attributes the runner adds beside the GenAI ones (its own namespace, as the conventions ask). */
const RUN_ID = "echo_runner.run.id";
const PARENT_RUN_ID = "echo_runner.run.parent_id";
const RUN_STATUS = "echo_runner.run.status";
const SCHEDULE_ID = "echo_runner.schedule.id";
const ORIGIN = "echo_runner.run.origin";
const UNATTENDED = "echo_runner.run.unattended";
const RESUMED = "echo_runner.attempt.resumed";
const JOURNALLED = "echo_runner.attempt.journalled";
const ATTEMPT_END = "echo_runner.attempt.end";
const STEP = "echo_runner.model.step";
const RETRIES = "echo_runner.model.retries";
const IDEMPOTENCY_KEY = "echo_runner.tool.idempotency_key";
const CALL_INDEX = "echo_runner.tool.call_index";
const REPLAYED = "echo_runner.tool.replayed";
const PARKED = "echo_runner.tool.parked";
const WAKE_AT = "echo_runner.park.wake_at";
const GATE_VERDICT = "echo_runner.gate.verdict";
const GATE_STEP = "echo_runner.gate.step";
const GATE_STEP_NAME = "echo_runner.gate.step_name";
const GATE_SOURCE = "echo_runner.gate.approval_source";
const GATE_RISK = "echo_runner.gate.risk";
const GATE_FLAGGED = "echo_runner.gate.flagged";

/** The low-cardinality name of what went wrong: a RunnerError's code, else the error's class. */
function errorType(error: unknown): string {
  if (isRunnerError(error)) return error.code;
  return error instanceof Error ? error.name : "_OTHER";
}

function failed(span: Span, type: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, type);
  // The type, not the message: messages may quote arguments or a provider's text.
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * The run loop's spans as OpenTelemetry spans, named and attributed by the GenAI semantic
 * conventions: `invoke_agent {agent}` per run (sent when the run ends, under a span id derived from
 * the run id), an `attempt {agent}` span per attempt under it, and under that `chat {model}` per
 * fresh model call and `execute_tool {tool}` per tool call. Every span of a run tree carries the
 * trace id derived from its `traceId`, so resumed attempts and sub-agents land in one trace. Never
 * throws into the run: a tracing fault loses a span, not a run.
 */
export class OtelRunTracer implements RunTracer {
  readonly exporting = true;
  readonly #tracer: Tracer;
  readonly #ids: ScriptedIds;
  readonly #describe: DescribeModel;
  readonly #shutdown: () => Promise<void>;

  constructor(options: {
    tracer: Tracer;
    ids: ScriptedIds;
    describeModel: DescribeModel;
    shutdown: () => Promise<void>;
  }) {
    this.#tracer = options.tracer;
    this.#ids = options.ids;
    this.#describe = options.describeModel;
    this.#shutdown = options.shutdown;
  }

  attempt(payload: AgentJobPayload, start: AttemptStart): AttemptTrace {
    const span = this.#tracer.startSpan(
      `attempt ${payload.agentId}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          ...this.#runAttributes(payload),
          [RESUMED]: start.resumed,
          [JOURNALLED]: start.journalled,
        },
      },
      remoteParent(otelTraceId(payload.traceId), runSpanId(payload.runId)),
    );
    if (start.resumed) span.addEvent("echo_runner.run.resumed", { [JOURNALLED]: start.journalled });
    return new OtelAttempt(this.#tracer, span, payload, this.#describe);
  }

  runEnded(payload: AgentJobPayload, end: RunTraceEnd): void {
    const traceId = otelTraceId(payload.traceId);
    const parent =
      payload.parentExecutionId === null
        ? ROOT_CONTEXT
        : remoteParent(traceId, runSpanId(payload.parentExecutionId));
    const model = this.#describe(payload.agent.model);
    const span = this.#ids.with({ traceId, spanId: runSpanId(payload.runId) }, () =>
      this.#tracer.startSpan(
        `invoke_agent ${payload.agentId}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: payload.createdAt,
          attributes: {
            [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
            ...providerAttributes(model, payload.agent.model),
            ...this.#runAttributes(payload),
            [RUN_STATUS]: end.status,
          },
        },
        parent,
      ),
    );
    if (end.status === "failed") failed(span, end.code ?? "_OTHER");
    if (end.status === "cancelled") span.setAttribute(ATTR_ERROR_TYPE, "cancelled");
    span.end();
  }

  shutdown(): Promise<void> {
    return this.#shutdown();
  }

  #runAttributes(payload: AgentJobPayload): Attributes {
    return {
      [ATTR_GEN_AI_AGENT_NAME]: payload.agentId,
      [ATTR_GEN_AI_CONVERSATION_ID]: payload.runId,
      [RUN_ID]: payload.runId,
      [ORIGIN]: payload.origin.kind,
      [UNATTENDED]: payload.unattended,
      ...(payload.parentExecutionId ? { [PARENT_RUN_ID]: payload.parentExecutionId } : {}),
      ...(payload.origin.scheduleId ? { [SCHEDULE_ID]: payload.origin.scheduleId } : {}),
    };
  }
}

/** A context whose parent is the span `spanId` of trace `traceId` (sampled), possibly never seen here. */
function remoteParent(traceId: string, spanId: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

function providerAttributes(model: ModelDescription | undefined, configName: string): Attributes {
  const provider = model?.provider ?? "_OTHER";
  return {
    [ATTR_GEN_AI_PROVIDER_NAME]: provider,
    // The name before the conventions renamed it, still read by some backends.
    [ATTR_GEN_AI_SYSTEM]: provider,
    [ATTR_GEN_AI_REQUEST_MODEL]: model?.model ?? configName,
  };
}

class OtelAttempt implements AttemptTrace {
  readonly #tracer: Tracer;
  readonly #span: Span;
  readonly #context: Context;
  readonly #payload: AgentJobPayload;
  readonly #describe: DescribeModel;
  readonly #calls = new Map<string, ToolCallTrace>();

  constructor(tracer: Tracer, span: Span, payload: AgentJobPayload, describe: DescribeModel) {
    this.#tracer = tracer;
    this.#span = span;
    this.#context = trace.setSpan(ROOT_CONTEXT, span);
    this.#payload = payload;
    this.#describe = describe;
  }

  modelCall(step: number, configName: string): ModelCallTrace {
    const model = this.#describe(configName);
    const span = this.#tracer.startSpan(
      `chat ${model?.model ?? configName}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
          ...providerAttributes(model, configName),
          [ATTR_GEN_AI_AGENT_NAME]: this.#payload.agentId,
          [ATTR_GEN_AI_CONVERSATION_ID]: this.#payload.runId,
          [STEP]: step,
          ...(model?.serverAddress ? { [ATTR_SERVER_ADDRESS]: model.serverAddress } : {}),
          ...(model?.serverPort ? { [ATTR_SERVER_PORT]: model.serverPort } : {}),
        },
      },
      this.#context,
    );
    return {
      end(response) {
        span.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [response.finishReason]);
        if (response.model) span.setAttribute(ATTR_GEN_AI_RESPONSE_MODEL, response.model);
        if (response.usage) {
          span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, response.usage.promptTokens);
          span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, response.usage.completionTokens);
          if (response.usage.cachedTokens) {
            span.setAttribute(ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, response.usage.cachedTokens);
          }
        }
        span.setAttribute(RETRIES, response.retries?.length ?? 0);
        span.end();
      },
      fail(error) {
        failed(span, errorType(error));
        span.end();
      },
    };
  }

  toolCall(call: ToolCallStart): ToolCallTrace {
    const span = this.#tracer.startSpan(
      `execute_tool ${call.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
          [ATTR_GEN_AI_TOOL_NAME]: call.name,
          [ATTR_GEN_AI_TOOL_CALL_ID]: call.callId,
          [ATTR_GEN_AI_TOOL_TYPE]: "function",
          [IDEMPOTENCY_KEY]: call.idempotencyKey,
          [CALL_INDEX]: call.callIndex,
        },
      },
      this.#context,
    );
    const calls = this.#calls;
    const key = call.idempotencyKey;
    const done = () => {
      calls.delete(key);
      span.end();
    };
    const traced: ToolCallTrace = {
      decided(decision) {
        const attributes = {
          [GATE_VERDICT]: decision.verdict,
          [GATE_STEP]: decision.step,
          [GATE_STEP_NAME]: decision.stepName,
          [GATE_SOURCE]: decision.approvalSource,
          [GATE_RISK]: decision.risk,
          [GATE_FLAGGED]: decision.flagged,
        };
        span.setAttributes(attributes);
        span.addEvent("echo_runner.gate.decision", attributes);
      },
      end(result, replay) {
        span.setAttribute(REPLAYED, replay);
        if (replay) span.addEvent("echo_runner.tool.replayed");
        if (!result.success) failed(span, result.errorKind ?? "_OTHER");
        done();
      },
      parked(wakeAt) {
        const at = new Date(wakeAt).toISOString();
        span.setAttribute(PARKED, true);
        span.addEvent("echo_runner.run.parked", { [WAKE_AT]: at });
        done();
      },
      fail(error) {
        failed(span, errorType(error));
        done();
      },
    };
    calls.set(key, traced);
    return traced;
  }

  decided(idempotencyKey: string, decision: Parameters<AttemptTrace["decided"]>[1]): void {
    this.#calls.get(idempotencyKey)?.decided(decision);
  }

  end(how: AttemptEnd): void {
    const span = this.#span;
    span.setAttribute(ATTEMPT_END, how.kind);
    switch (how.kind) {
      case "returned":
        span.setAttribute(RUN_STATUS, how.status);
        break;
      case "parked":
        span.addEvent("echo_runner.run.parked", { [WAKE_AT]: new Date(how.wakeAt).toISOString() });
        break;
      case "failed":
        failed(span, errorType(how.error));
        break;
      default:
        assertNever(how, "attempt end");
    }
    span.end();
  }
}
