import type { AnyTool } from "../../catalog/index.js";
import { modelStepKey } from "../../journal/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import { RunnerError } from "../../shared/index.js";
import { childrenStartedBy, computeIdempotencyKey } from "../../tools/index.js";
import { batchMode, runToolBatch } from "../execution/batch.js";
import { registryForRun } from "../execution/run-tools.js";
import {
  type ChatMessage,
  ModelResponse,
  type ModelToolCall,
  type ModelToolSpec,
} from "../model/model-client.js";
import { claimAndRun } from "./claim-and-run.js";
import { DeferredCompletion } from "./deferred-completion.js";
import { taskWithDependencies, throwIfStopRequested } from "./dependency-answers.js";
import { endedByFinishReason } from "./finish-outcome.js";
import { landRunLayer } from "./land-layer.js";
import { ModelTurns } from "./model-turns.js";
import { ParkSignal } from "./park-signal.js";
import { throwIfCancelled } from "./run-cancelled.js";
import type { RunDeps, RunOutcome } from "./run-contract.js";
import { RunOutbox } from "./run-outbox.js";
import type { RunScope } from "./run-scope.js";
import { NOOP_MODEL_CALL, NOOP_RUN_TRACER, tracedModelCall } from "./run-tracer.js";
import { batchVeto } from "./tool-batch-hook.js";
import { runToolCall } from "./tool-call.js";
import { resultForModel } from "./tool-result-text.js";

/** Options for {@link runAgent}. */
export interface RunAgentOptions {
  payload: AgentJobPayload;
  jobId: string;
  /** Claimant id, unique per attempt of this job in this process. */
  owner: string;
  deps: RunDeps;
  /** Aborts when an operator cancels the run (the worker's per-job signal). */
  signal?: AbortSignal;
}

function systemPrompt(payload: AgentJobPayload): string {
  return [
    `You are agent "${payload.agentId}", running ${payload.unattended ? "unattended (nobody is watching)" : "for a user"}.`,
    `Your workspace is ${payload.agent.workspace}. Use the tools you are given; a call may be denied or wait for a person's approval.`,
    "When the task is done, answer with a short final report and no tool calls.",
  ].join("\n");
}

function toolSpec(tool: AnyTool): ModelToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as unknown as Record<string, unknown>,
  };
}

/** Tools the model sees now: the policy's visible tools, plus deferred ones tool_search loaded. */
function visibleSpecs(scope: RunScope, loaded: ReadonlySet<string>): ModelToolSpec[] {
  const names = [...scope.policy.visible, ...scope.policy.deferred.filter((n) => loaded.has(n))];
  const specs: ModelToolSpec[] = [];
  for (const name of names) {
    const tool = scope.deps.registry.get(name);
    if (tool) specs.push(toolSpec(tool));
  }
  return specs;
}

/** Names a tool_search result asks to load (its `data.load`). */
function loadedBySearch(call: ModelToolCall, data: unknown): string[] {
  if (call.name !== "tool_search" || data === null || typeof data !== "object") return [];
  const load = (data as { load?: unknown }).load;
  return Array.isArray(load) ? load.filter((n): n is string => typeof n === "string") : [];
}

function parseRecordedResponse(value: unknown, step: number): ModelResponse {
  const parsed = ModelResponse.safeParse(value);
  if (!parsed.success) {
    throw new RunnerError("JOURNAL_CORRUPT", `the journalled model response of step ${step} does not parse`, {
      data: { step },
    });
  }
  return parsed.data;
}

/**
 * The agent loop (docs/DESIGN.md §7): model call → tool calls → policy + guard + gate → execute →
 * results back to the model, until the model stops or max steps. Every model response and every
 * tool call is journalled, so a replay after a crash or a park is deterministic and repeats no side
 * effect. Throws ParkSignal when the run must wait.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunOutcome> {
  const { payload, deps, owner, jobId } = options;
  const snapshot = await deps.journal.readRun(payload.runId);
  const recorded = new Map<string, unknown>();
  for (const [key, record] of snapshot.records)
    if (record.status === "completed") recorded.set(key, record.result);
  // A scheduled run and its children (which carry the root schedule id) get cron authorisation only
  // from the schedule's grant, checked now, at start — never from the payload.
  const cronAuthorized =
    payload.unattended && payload.origin.scheduleId ? await deps.cronAuthorized(payload) : false;
  const childOrdinals = new Map<string, number>();
  const outbox = new RunOutbox(deps.audit, deps.journal, payload.runId);
  // Entries an earlier attempt stored with its claims (decisions) and results (executions) but did
  // not get to deliver; a call's decision goes before its execution.
  for (const [key, text] of snapshot.claimOutbox)
    outbox.send(key, deps.audit.fromOutbox(payload.runId, key, text), true);
  for (const [key, text] of snapshot.outbox)
    outbox.send(key, deps.audit.fromOutbox(payload.runId, key, text));
  const trace = (deps.tracer ?? NOOP_RUN_TRACER).attempt(payload, {
    resumed: snapshot.records.size > 0,
    journalled: recorded.size,
  });
  const policy = deps.resolvePolicy(payload);
  const scope: RunScope = {
    childOrdinals,
    payload,
    jobId,
    owner,
    policy,
    cronAuthorized,
    // tool_search searches this run's deferred tools, so it is built for the run.
    deps: { ...deps, registry: registryForRun(deps.registry, policy) },
    recorded,
    outbox,
    signal: options.signal,
    trace,
  };
  // Each step's completion rides with the next step's claim (one round trip per step boundary);
  // whatever is still pending when the run stops, parks or fails is recorded before it does.
  const deferred = new DeferredCompletion(deps.journal, payload.runId, owner, outbox);
  try {
    // The run's layer lands (or parks for a person) once the agent is done, before the run ends.
    const outcome = await landRunLayer(scope, await runSteps(scope, deferred));
    // A run ends with its execution entries in the audit trail: nobody replays a finished run.
    // Delivered first, so that the last completion carries their acknowledgements.
    await outbox.delivered();
    await deferred.flush();
    await outbox.settle();
    trace.end({
      kind: "returned",
      status: outcome.status,
      steps: outcome.steps,
      toolCalls: outcome.toolCalls,
    });
    return outcome;
  } catch (err) {
    trace.end(
      err instanceof ParkSignal ? { kind: "parked", wakeAt: err.wakeAt } : { kind: "failed", error: err },
    );
    // A parking run must leave its steps recorded (the wake-up replays them) and its entries
    // delivered; on any other error that is best effort: an unrecorded step is in doubt, and a
    // model step re-runs; an undelivered entry stays in the journal for the next attempt.
    if (err instanceof ParkSignal) {
      await deferred.flush();
      await outbox.settle();
    } else {
      await deferred.flush().catch(() => undefined);
      await outbox.settle().catch(() => undefined);
    }
    throw err;
  }
}

async function runSteps(scope: RunScope, deferred: DeferredCompletion): Promise<RunOutcome> {
  const { payload, deps, owner, recorded, childOrdinals } = scope;
  const model = deps.model(payload.agent.model);
  const messages: ChatMessage[] = [
    { role: "system", content: systemPrompt(payload) },
    { role: "user", content: await taskWithDependencies(payload, deps.children) },
  ];
  const loaded = new Set<string>();
  const turns = new ModelTurns(scope);
  // Children started by earlier calls (a workflow starts several): the fan-out limit's count.
  let childCount = 0;
  let callIndex = 0;
  for (let step = 0; step < payload.agent.maxSteps; step++) {
    throwIfCancelled(scope.signal, payload.runId);
    await throwIfStopRequested(payload, deps.children);
    const key = modelStepKey(step);
    const tools = visibleSpecs(scope, loaded);
    if (!recorded.has(key)) {
      const stop = await turns.budgetStop(step, callIndex);
      // (runAgent records the pending completion once the run has returned.)
      if (stop) return stop;
    }
    const claimed = recorded.has(key)
      ? { value: recorded.get(key), replay: true }
      : await claimAndRun({
          journal: deps.journal,
          runId: payload.runId,
          key,
          owner,
          leaseMs: deps.claimLeaseMs,
          // A model call changes nothing in the world: asking again is always safe.
          onInDoubt: () => "rerun",
          inDoubtFailure: () => null,
          parkInDoubt: async () => deps.clock.now(),
          produce: async () =>
            tracedModelCall(scope.trace?.modelCall(step, payload.agent.model) ?? NOOP_MODEL_CALL, () =>
              turns.call(model, messages, tools),
            ),
          deferred,
          deferOwn: true,
        });
    throwIfCancelled(scope.signal, payload.runId);
    const response = parseRecordedResponse(claimed.value, step);
    turns.recorded(response, recorded.has(key));
    const calls = response.message.toolCalls;
    messages.push({ role: "assistant", content: response.message.content, toolCalls: calls });
    const ended = endedByFinishReason(response, step, callIndex);
    if (ended || calls.length === 0) {
      return {
        ...(ended ?? {
          status: "completed",
          finalAnswer: response.message.content ?? "",
          steps: step + 1,
          toolCalls: callIndex,
        }),
        usage: turns.usage(),
      };
    }
    const base = callIndex;
    callIndex += calls.length;
    calls.forEach((call, i) => {
      const starting = childrenStartedBy(call);
      if (starting > 0) {
        const params = typeof call.arguments === "string" ? { __unparsed: call.arguments } : call.arguments;
        const key = computeIdempotencyKey({
          traceId: payload.traceId,
          toolName: call.name,
          callIndex: base + i,
          params,
        });
        childOrdinals.set(key, childCount);
        childCount += starting;
      }
    });
    // A single call carries the model step's completion in its claim (and leaves its own pending
    // for the next model step's claim). Several calls may run in parallel, and none may act before
    // the response that asked for them is recorded: record it first.
    const single = calls.length === 1 ? deferred : undefined;
    if (!single) await deferred.flush();
    const concurrencySafe = (call: ModelToolCall) => {
      const tool = deps.registry.get(call.name);
      if (!tool || typeof call.arguments === "string") return false;
      try {
        return tool.isConcurrencySafe(call.arguments);
      } catch {
        return false;
      }
    };
    const execution = deps.toolExecution ?? "parallel";
    // seed 002 beforeToolBatch: the whole batch, before any call of it; a veto denies every call.
    const veto = await batchVeto(deps.beforeToolBatch, {
      payload,
      step,
      calls,
      mode: batchMode(calls, concurrencySafe, execution),
    });
    const { results } = await runToolBatch(
      calls,
      concurrencySafe,
      (call, i) => runToolCall(scope, call, base + i, single, veto),
      execution,
    );
    results.forEach((outcome, i) => {
      const call = calls[i] as ModelToolCall;
      if (outcome.result.success)
        for (const name of loadedBySearch(call, outcome.result.data)) loaded.add(name);
      messages.push({ role: "tool", toolCallId: call.id, content: resultForModel(outcome.result) });
    });
  }
  return {
    status: "max_steps",
    finalAnswer: `stopped after ${payload.agent.maxSteps} steps without a final answer`,
    steps: payload.agent.maxSteps,
    toolCalls: callIndex,
    usage: turns.usage(),
  };
}
