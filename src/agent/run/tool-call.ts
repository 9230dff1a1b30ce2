import {
  type ExecHost,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
} from "../../catalog/index.js";
import type { GateCall } from "../../gate/index.js";
import { resolveInDoubt } from "../../journal/index.js";
import {
  contextForExecution,
  createToolExecutionContext,
  currentWorkspaceView,
  FrozenSet,
  usesRunControl,
  withWorkspaceView,
} from "../../tools/index.js";
import type { ModelToolCall } from "../model/model-client.js";
import { approvalArgsHash, approvalSubject } from "./approval-hash.js";
import { type ClaimInfo, claimAndRun } from "./claim-and-run.js";
import type { DeferredCompletion } from "./deferred-completion.js";
import { executeWithPolicy } from "./execute-tool.js";
import { parkWhileLayerBusy } from "./land-layer.js";
import { approvalAnswered, ParkSignal } from "./park-signal.js";
import { type ExecutePlan, planCall, vetoedCall } from "./plan-call.js";
import { throwIfCancelled } from "./run-cancelled.js";
import { createRunControl } from "./run-control.js";
import type { RunScope } from "./run-scope.js";
import { NOOP_TOOL_CALL, type ToolCallTrace } from "./run-tracer.js";
import { prepareResult } from "./tool-result-text.js";

/** A tool call's outcome for the model and the run's counters. */
export type { RunScope } from "./run-scope.js";

export interface CallOutcome {
  readonly result: ToolResult;
  readonly replay: boolean;
}

// Each run's allowed tools as the FrozenSet its contexts share (the policy's set is never changed).
const frozenAllowed = new WeakMap<ReadonlySet<string>, FrozenSet<string>>();

function allowedToolsOf(scope: RunScope): FrozenSet<string> {
  const allowed = scope.policy.allowed;
  let frozen = frozenAllowed.get(allowed);
  if (frozen === undefined) {
    frozen = new FrozenSet(allowed);
    frozenAllowed.set(allowed, frozen);
  }
  return frozen;
}

function contextFor(
  scope: RunScope,
  call: { toolName: string; callIndex: number; params: unknown },
): ToolExecutionContext {
  const { payload } = scope;
  return createToolExecutionContext({
    executionId: payload.runId,
    traceId: payload.traceId,
    sessionKey: payload.sessionKey,
    userId: payload.userId,
    agentId: payload.agentId,
    call,
    parentExecutionId: payload.parentExecutionId,
    allowedTools: allowedToolsOf(scope),
    channel: payload.channel,
    chatId: payload.chatId,
    unattended: payload.unattended,
    cronAuthorized: scope.cronAuthorized,
    workspace: payload.agent.workspace,
    workspaceOnly: scope.policy.fence.workspaceOnly,
  });
}

/**
 * One tool call, exactly once: replay a journalled result, or validate → policy → guard → gate →
 * (ask: park | deny: record | allow: claim, execute, complete). Every tool takes this one path; a
 * tool that acts on its own run (src/tools/loop) is executed with the run's controls just before
 * its claim instead of inside it, and its result is journalled the same way. Never throws for bad
 * input; throws ParkSignal when the run must wait. With `deferred` (the only call of its step), the
 * run's pending completion rides with this call's claim and this call's own completion is left
 * pending for the next step's claim; anything that acts before the claim (asking a person,
 * starting a child) records the pending completion first.
 */
export async function runToolCall(
  scope: RunScope,
  modelCall: ModelToolCall,
  callIndex: number,
  deferred?: DeferredCompletion,
  /** Why the beforeToolBatch hook vetoed this call's batch: the call is denied, not run. */
  veto?: string,
): Promise<CallOutcome> {
  const { deps, payload } = scope;
  const name = modelCall.name;
  const rawArgs = modelCall.arguments;
  const params = typeof rawArgs === "string" ? { __unparsed: rawArgs } : rawArgs;
  const baseCtx = contextFor(scope, { toolName: name, callIndex, params });
  const key = baseCtx.idempotencyKey;
  const trace =
    scope.trace?.toolCall({ name, callId: modelCall.id, callIndex, idempotencyKey: key }) ?? NOOP_TOOL_CALL;
  if (scope.recorded.has(key)) {
    const result = scope.recorded.get(key) as ToolResult;
    trace.end(result, true);
    return { result, replay: true };
  }
  return traced(trace, async () => {
    // Everything the call does to files, from the path fence's check to the exec, happens in the
    // run's layer when it has one (docs/SANDBOX.md): the real workspace is changed only when the run lands.
    // A sub-agent works in its tree's layer (it inherits the trace id): it sees its parent's work.
    const layers = deps.layers;
    const view =
      layers &&
      (await parkWhileLayerBusy(scope, () =>
        layers.enter({ runId: payload.runId, layerId: payload.traceId, workspace: payload.agent.workspace }),
      ));
    return withWorkspaceView(view, () => runFreshCall(scope, modelCall, baseCtx, deferred, veto));
  });
}

/** A fresh call inside its trace: its result, its park, or its failure ends the call's span. */
async function traced(trace: ToolCallTrace, run: () => Promise<CallOutcome>): Promise<CallOutcome> {
  try {
    const outcome = await run();
    trace.end(outcome.result, outcome.replay);
    return outcome;
  } catch (err) {
    if (err instanceof ParkSignal) trace.parked(err.wakeAt);
    else trace.fail(err);
    throw err;
  }
}

/** {@link runToolCall} for a call the journal has no result of. */
async function runFreshCall(
  scope: RunScope,
  modelCall: ModelToolCall,
  baseCtx: ToolExecutionContext,
  deferred: DeferredCompletion | undefined,
  veto: string | undefined,
): Promise<CallOutcome> {
  const { deps, payload } = scope;
  const name = modelCall.name;
  const rawArgs = modelCall.arguments;
  const params = typeof rawArgs === "string" ? { __unparsed: rawArgs } : rawArgs;
  const key = baseCtx.idempotencyKey;
  const tool = deps.registry.get(name);

  // Decide first (pure, cheap); the journal below makes the outcome exactly-once.
  const plan =
    veto === undefined
      ? await planCall(scope, tool, name, rawArgs, baseCtx, deferred)
      : await vetoedCall(scope, name, veto, key);
  const leaseMs = deps.claimLeaseMs;
  const safeToRepeat = plan.kind === "execute" ? plan.readOnly || (tool?.idempotent ?? false) : true;

  // Every allowed call is executed the same way (below); the one difference a tool can declare is
  // that it acts on its own run (starts or reads child runs, parks, asks a person: src/tools/loop).
  // Such a tool gets the run's controls and runs before the claim, because a delegated child that
  // is still running parks the parent and a claim must not be left open across a park; its ids
  // derive from the call, so running it again on a replay starts nothing twice.
  const control =
    plan.kind === "execute" && usesRunControl(plan.tool)
      ? createRunControl(scope, key, plan.gateCall)
      : undefined;
  const execute = async (
    allowed: ExecutePlan,
    claim: ClaimInfo,
    credentials: Readonly<Record<string, string>>,
  ): Promise<ToolResult> => {
    const ctx = contextForExecution(baseCtx, {
      approvalSource: allowed.decision.approvalSource,
      credentials,
      // seed 000: the tool names a person approved (its example checks the name), and the call.
      ...(allowed.approver ? { approvedActions: [name, key] } : {}),
      // A re-run after a crash: the tool may already have acted; an idempotent one dedupes.
      attemptIndex: claim.attempt - 1,
      isReplay: claim.inDoubtRerun && safeToRepeat,
      ...(control ? { runControl: control.port } : {}),
    });
    const result = await executeWithPolicy(allowed.tool, allowed.args, ctx, safeToRepeat, scope.signal);
    // Cancelled while it ran: its process tree was stopped, and what it returned is not its result
    // (the claim stays open, so a retry finds the call in doubt instead of "done").
    throwIfCancelled(scope.signal, payload.runId);
    // A park or a failed queue write is not the call's result: it interrupts the run, as it always has.
    const interruption = control?.interruption();
    if (interruption !== undefined) throw interruption;
    return overQuota(scope, result);
  };
  // The decision goes on record with the claim below (see ExecutePlan.decisionEntry), except for a
  // call that acts before its claim: its decision goes to the audit trail first.
  if (control && plan.kind === "execute") {
    await scope.outbox.sendNow(plan.decisionEntry);
    await deferred?.flush();
  }
  const settledStart = deps.clock.now();
  const settled =
    control && plan.kind === "execute"
      ? await execute(plan, { attempt: 1, inDoubtRerun: false }, deps.credentials(name))
      : undefined;
  const settledMs = deps.clock.now() - settledStart;

  const doubtKey = `${key}-in-doubt`;
  const doubtCall =
    plan.kind === "execute"
      ? plan.gateCall
      : fallbackGateCall(name, params, payload.agent.workspace, deps.execHost);
  const doubtLookup = {
    runId: payload.runId,
    idempotencyKey: doubtKey,
    tool: doubtCall.tool,
    argsHash: doubtCall.argsHash,
    agentId: payload.agentId,
  };
  const claimed = await claimAndRun({
    journal: deps.journal,
    runId: payload.runId,
    key,
    owner: scope.owner,
    leaseMs,
    ...(deferred ? { deferred, deferOwn: true } : {}),
    outbox: scope.outbox,
    ...(plan.kind === "execute" && !control ? { decision: plan.decisionEntry } : {}),
    // A person's answer to "did it run?" is its own request (a derived key), never the approval that
    // let the call run the first time: that approval must not also approve running it again.
    onInDoubt: async () => {
      const action = resolveInDoubt({
        readOnlyForArgs: safeToRepeat,
        idempotent: false,
        policy: deps.inDoubtPolicy,
      });
      if (action !== "park") return action;
      const answer = await deps.approvals.lookup(doubtLookup);
      switch (answer.status) {
        case "approved":
          return "rerun";
        case "denied":
        case "expired":
        case "cancelled":
          return "fail";
        case "pending":
        case "none":
          return "park";
      }
    },
    inDoubtFailure: () =>
      toolFailure(
        "in_doubt",
        `Tool "${name}" may have run before a crash and is not safe to run again; it was not re-run`,
      ),
    inDoubtReady: approvalAnswered(deps.approvals, doubtLookup),
    parkInDoubt: async () => {
      const { wakeAt } = await deps.approvals.register({
        kind: "in_doubt",
        payload,
        jobId: scope.jobId,
        idempotencyKey: doubtKey,
        call: doubtCall,
        subject: approvalSubject(name, params, payload.agent.workspace, deps.execHost),
        decision: undefined,
        reason: `in doubt: "${name}" may have run before a crash. Approve to run it again, deny to not run it.`,
      });
      return wakeAt;
    },
    produce: async (claim) => {
      if (plan.kind === "result") return plan.result;
      const started = deps.clock.now();
      const credentials = deps.credentials(name);
      // A call that acted before its claim (settled) is audited here as every other execution.
      const prepared = settled
        ? { result: settled }
        : await prepareResult(await execute(plan, claim, credentials), Object.values(credentials), {
            store: deps.spill,
            runId: payload.runId,
            key,
          });
      // The execution entry goes to the audit trail through the run's outbox: stored with the
      // result in the journal, appended after it without the run waiting (see RunOutbox).
      const entry = deps.audit.execution({
        payload,
        tool: name,
        risk: plan.decision.risk,
        capabilities: plan.capabilities,
        result: prepared.result,
        durationMs: settled ? settledMs : deps.clock.now() - started,
        approvalSource: plan.decision.approvalSource,
        approver: plan.approver,
        idempotencyKey: key,
        // An idempotent re-run after a crash is recorded as the replay the tool was told it is.
        replay: claim.inDoubtRerun && safeToRepeat,
        attempt: claim.attempt,
      });
      scope.outbox.stage(key, entry);
      return prepared.result;
    },
  });
  return { result: claimed.value as ToolResult, replay: claimed.replay };
}

/**
 * A call that left the run's layer over `execution.disk_mb` fails naming the limit (what it wrote
 * stays in the layer, so the agent can delete it); the run goes on.
 */
async function overQuota(scope: RunScope, result: ToolResult): Promise<ToolResult> {
  const layers = scope.deps.layers;
  if (layers === undefined || currentWorkspaceView() === undefined) return result;
  const over = await layers.overQuota(scope.payload.traceId);
  if (over === undefined) return result;
  const how = result.success ? "the call finished, but" : `${result.error}:`;
  return {
    ...toolFailure("business", `${how} ${over}`, { limit: "execution.disk_mb" }),
    output: result.output,
  };
}

function fallbackGateCall(
  tool: string,
  params: Record<string, unknown>,
  workspace: string,
  execHost: ExecHost | undefined,
): GateCall {
  return { tool, args: params, risk: "exec", argsHash: approvalArgsHash(tool, params, workspace, execHost) };
}
