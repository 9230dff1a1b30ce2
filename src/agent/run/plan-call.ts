import {
  type AnyTool,
  isExecClassTool,
  reservedToolResult,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
  validateAnyToolArgs,
} from "../../catalog/index.js";
import type { GateCall, GateContext, GateDecision, HumanApproval } from "../../gate/index.js";
import { checkToolCall } from "../../policy/index.js";
import { usesRunControl } from "../../tools/index.js";
import { approvalArgsHash, approvalKeyOf, approvalSubject } from "./approval-hash.js";
import type { DeferredCompletion } from "./deferred-completion.js";
import { approvalAnswered, ParkSignal } from "./park-signal.js";
import type { OutboxEntry } from "./ports.js";
import { runFileDigests } from "./run-file-digests.js";
import type { RunScope } from "./run-scope.js";

function gateContextOf(scope: RunScope): GateContext {
  const { payload } = scope;
  return {
    unattended: payload.unattended,
    cronAuthorized: scope.cronAuthorized,
    channel: payload.channel,
    userId: payload.userId,
    agentId: payload.agentId,
    parentExecutionId: payload.parentExecutionId,
    interactive: payload.origin.kind === "cli" && !payload.unattended,
    scheduleId: payload.origin.scheduleId,
  };
}

function policyDenial(reason: string, risk: GateDecision["risk"]): GateDecision {
  return {
    verdict: "deny",
    step: 0,
    stepName: "policy",
    reason,
    risk,
    flagged: false,
    approvalSource: "auto",
  };
}

/** Audits the decision about one call (key `key`) of tool `name` in the scope's run. */
function auditDecision(
  scope: RunScope,
  name: string,
  key: string,
  decision: GateDecision,
  capabilities: readonly string[],
): Promise<void> {
  scope.trace?.decided(key, decision);
  return scope.deps.audit.decision({
    payload: scope.payload,
    tool: name,
    decision,
    capabilities,
    idempotencyKey: key,
  });
}

/** A call of a vetoed batch: audited as a denial before the gate (step 0), its result journalled. */
export async function vetoedCall(
  scope: RunScope,
  name: string,
  reason: string,
  key: string,
): Promise<CallPlan> {
  const decision = policyDenial(reason, scope.deps.registry.get(name)?.riskLevel ?? "exec");
  await auditDecision(scope, name, key, decision, []);
  return { kind: "result", result: toolFailure("denied", reason) };
}

/** An allowed call: what runs and under which decision. */
export interface ExecutePlan {
  kind: "execute";
  tool: AnyTool;
  args: Record<string, unknown>;
  readOnly: boolean;
  gateCall: GateCall;
  decision: GateDecision;
  approver: string | undefined;
  capabilities: readonly string[];
  /**
   * The decision's audit entry, not yet on record: it goes into the journal with the call's claim
   * (see claimAndRun), or straight to the trail when the call acts before its claim. Nothing may act
   * on the plan before it is on record in one or the other.
   */
  decisionEntry: OutboxEntry;
}

export type CallPlan = { kind: "result"; result: ToolResult } | ExecutePlan;

/**
 * What to do with one call, decided before anything acts: validate → policy → guard → gate. A
 * refusal or a bad call is a result to journal; a call the gate asks a person about registers the
 * request and throws ParkSignal (recording the run's pending completion first); an allowed call is
 * a plan to execute, its decision's audit entry not yet on record (`decisionEntry`).
 */
export async function planCall(
  scope: RunScope,
  tool: AnyTool | undefined,
  name: string,
  rawArgs: Record<string, unknown> | string,
  ctx: ToolExecutionContext,
  deferred: DeferredCompletion | undefined,
): Promise<CallPlan> {
  const { deps, payload } = scope;
  if (typeof rawArgs === "string") {
    return {
      kind: "result",
      result: toolFailure(
        "validation",
        `the arguments of "${name}" are not a JSON object: ${rawArgs.slice(0, 200)}`,
      ),
    };
  }
  if (!tool) {
    const reserved = reservedToolResult(name);
    if (reserved) return { kind: "result", result: reserved };
    const decision = policyDenial(
      `Tool "${name}" is not available to this run (unknown or not present)`,
      "exec",
    );
    await auditDecision(scope, name, ctx.idempotencyKey, decision, []);
    return { kind: "result", result: toolFailure("denied", decision.reason) };
  }
  const validation = validateAnyToolArgs(tool, rawArgs);
  if (!validation.ok) return { kind: "result", result: validation.result };
  const args = validation.args as Record<string, unknown>;
  const readOnly = safely(() => tool.isReadOnly(args), false);
  const destructive = safely(() => tool.isDestructive(args), true);
  const policyDecision = checkToolCall(scope.policy, name, args, { readOnly, destructive });
  const risk = policyDecision.risk.level;
  if (!policyDecision.allowed) {
    const reason = policyDecision.removedBy?.reason ?? `Tool "${name}" is not allowed for this run`;
    const decision = policyDenial(reason, risk);
    await auditDecision(scope, name, ctx.idempotencyKey, decision, policyDecision.capabilities);
    return { kind: "result", result: toolFailure("denied", reason) };
  }
  const guard = await deps.guard.assess(name, args, ctx);
  const toolPermission = safely(() => tool.checkPermissions(args, ctx), {
    behavior: "ask" as const,
    reason: `Tool "${name}"'s own permission check failed`,
  });
  // What the workspace files the command runs hold now: part of what an approval binds.
  const runFiles = isExecClassTool(name)
    ? await runFileDigests(deps.guard, name, args, payload.agent.workspace)
    : undefined;
  const gateCall: GateCall = {
    tool: name,
    args,
    risk,
    argsHash: approvalArgsHash(name, args, payload.agent.workspace, deps.execHost, runFiles),
    ...(guard ? { guard } : {}),
    toolPermission,
  };
  const gate = deps.gateFor(payload);
  const gateCtx = gateContextOf(scope);
  let decision = await gate.check(gateCall, gateCtx);
  const asked = {
    runId: payload.runId,
    idempotencyKey: approvalKeyOf(ctx.idempotencyKey, runFiles),
    tool: name,
    argsHash: gateCall.argsHash,
    agentId: payload.agentId,
  };
  let approver: string | undefined;
  if (decision.verdict === "ask") {
    const approval = await deps.approvals.lookup(asked);
    switch (approval.status) {
      case "approved": {
        const humanApproval: HumanApproval = {
          approver: approval.approver,
          argsHash: approval.argsHash,
          tool: approval.tool,
        };
        decision = await gate.check(gateCall, gateCtx, { humanApproval });
        if (decision.verdict === "allow") approver = approval.approver;
        else if (decision.verdict === "ask") {
          decision = {
            ...decision,
            verdict: "deny",
            reason: "the approval does not match this call's arguments",
          };
        }
        break;
      }
      case "denied":
      case "expired":
      case "cancelled":
        decision = { ...decision, verdict: "deny", reason: approval.reason };
        break;
      case "pending":
        // Woken before the decision (e.g. one of several approvals arrived): wait again.
        throw new ParkSignal(approval.deadline, decision.reason, approvalAnswered(deps.approvals, asked));
      case "none":
        break;
    }
  }
  if (decision.verdict === "allow") {
    // The run's trace hears every decision (an allowed one's audit entry goes out with the claim).
    scope.trace?.decided(ctx.idempotencyKey, decision);
    // Recorded by the caller with the claim (one journal write, no audit round trip to wait for).
    const decisionEntry = deps.audit.decisionEntry({
      payload,
      tool: name,
      decision,
      capabilities: policyDecision.capabilities,
      idempotencyKey: ctx.idempotencyKey,
      once: usesRunControl(tool),
    });
    return {
      kind: "execute",
      tool,
      args,
      readOnly,
      gateCall,
      decision,
      approver,
      capabilities: policyDecision.capabilities,
      decisionEntry,
    };
  }
  await auditDecision(scope, name, ctx.idempotencyKey, decision, policyDecision.capabilities);
  if (decision.verdict === "deny") return { kind: "result", result: toolFailure("denied", decision.reason) };
  // Asking a person acts on the model's response (a mail goes out): record the response first.
  await deferred?.flush();
  const { wakeAt } = await deps.approvals.register({
    kind: "approval",
    payload,
    jobId: scope.jobId,
    idempotencyKey: asked.idempotencyKey,
    call: gateCall,
    subject: approvalSubject(name, args, payload.agent.workspace, deps.execHost, runFiles),
    decision,
    reason: decision.reason,
  });
  throw new ParkSignal(wakeAt, decision.reason, approvalAnswered(deps.approvals, asked));
}

/** A tool's self-description that throws counts as the fail-closed answer. */
function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
