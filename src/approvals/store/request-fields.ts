import type { RiskLevel } from "../../catalog/index.js";
import { canonicalJson, RunnerError, sha256Hex } from "../../shared/index.js";
import { type ApprovalPolicy, resolveRequestPolicy } from "./approval-policy.js";
import { approvalIdFor, assertApprovalInput } from "./keys.js";
import type { ApprovalRequestFields } from "./record.js";

/** Phase 1 input: the call the gate asked about, from the worker. */
export interface RegisterInput {
  runId: string;
  jobId: string;
  traceId: string;
  /** `ctx.idempotencyKey` of the call: the request id is derived from it and the run id. */
  idempotencyKey: string;
  tool: string;
  /** The validated arguments (stored as canonical JSON and hashed). */
  args: unknown;
  risk: RiskLevel;
  flags?: readonly string[];
  reason: string;
  agent: string;
  /** Origin channel of the run (`ctx.channel`), for the per-channel wait. */
  channel: string;
  scheduleId?: string | null;
  parentRunId?: string | null;
  /** Schedule author or user who started the run (for forbid_self_approval). */
  owner?: string | null;
}
/**
 * The immutable part of a new request: the id derived from the run and idempotency key, the
 * canonical arguments and their hash, and what the policy decides (deadline, reminder, required
 * approvals, self-approval, approve_always). Fails closed on invalid ids and oversized or
 * unencodable arguments.
 */
export function buildRequestFields(
  input: RegisterInput,
  policy: ApprovalPolicy,
  now: number,
  maxArgsBytes: number,
): { fields: ApprovalRequestFields; executeGraceMs: number } {
  for (const what of ["runId", "jobId", "traceId", "idempotencyKey", "tool", "agent", "channel"] as const) {
    assertApprovalInput(what, input[what]);
  }
  let argsCanonical: string;
  try {
    argsCanonical = canonicalJson(input.args === undefined ? null : input.args);
  } catch (cause) {
    throw new RunnerError("APPROVAL_INPUT_INVALID", `arguments of ${input.tool} cannot be canonicalised`, {
      cause,
    });
  }
  const bytes = Buffer.byteLength(argsCanonical);
  if (bytes > maxArgsBytes) {
    throw new RunnerError(
      "APPROVAL_INPUT_INVALID",
      `arguments of ${input.tool} are ${bytes} bytes; at most ${maxArgsBytes} can be shown to an approver`,
    );
  }
  const resolved = resolveRequestPolicy(policy, input);
  const deadline = now + resolved.waitMs;
  const remindAt = resolved.reminderBeforeMs > 0 ? deadline - resolved.reminderBeforeMs : null;
  const fields: ApprovalRequestFields = {
    v: 1,
    id: approvalIdFor(input.runId, input.idempotencyKey),
    idempotencyKey: input.idempotencyKey,
    jobId: input.jobId,
    runId: input.runId,
    traceId: input.traceId,
    tool: input.tool,
    argsCanonical,
    argsHash: sha256Hex(argsCanonical),
    risk: input.risk,
    flags: [...(input.flags ?? [])],
    reason: input.reason,
    agent: input.agent,
    scheduleId: input.scheduleId ?? null,
    parentRunId: input.parentRunId ?? null,
    owner: input.owner ?? null,
    channel: input.channel,
    requestedAt: now,
    deadline,
    remindAt: remindAt !== null && remindAt > now ? remindAt : null,
    requiredApprovals: resolved.requiredApprovals,
    forbidSelfApproval: resolved.forbidSelfApproval,
    alwaysAllowed: resolved.alwaysAllowed,
    approvers: resolved.approvers,
  };
  return { fields, executeGraceMs: resolved.executeGraceMs };
}
