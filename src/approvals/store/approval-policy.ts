import { RISK_LEVELS, type RiskLevel } from "../../catalog/index.js";
import { normaliseIdentity, RunnerError, sameIdentity } from "../../shared/index.js";
import type { Approver } from "./record.js";

/**
 * How requests are timed and who decides (camelCase; workers map `permissions.approval.*`,
 * `approvers` onto it). Validated once by {@link resolveApprovalPolicy}.
 */
export interface ApprovalPolicy {
  /** How long a request waits for a person, ms (`wait_timeout_seconds`). */
  waitTimeoutMs: number;
  /** Per risk level override of the wait, ms. */
  waitTimeoutMsByRisk?: Partial<Record<RiskLevel, number>>;
  /** Per origin channel ("cron", "cli", ...) override of the wait, ms; wins over the risk override. */
  waitTimeoutMsByChannel?: Readonly<Record<string, number>>;
  /** Tool name or risk level → distinct approvals needed; the largest matching entry applies (default 1). */
  requiredApprovals?: Readonly<Record<string, number>>;
  /** The run's owner may not decide on its own run's calls. Default false. */
  forbidSelfApproval?: boolean;
  /** Remind this long before the deadline, ms; 0 = no reminder. Default 0. */
  reminderBeforeMs?: number;
  /**
   * An approved call may still start this long after the decision even when the deadline has passed
   * (the job wakes a moment after the click), ms. Default 15 minutes.
   */
  executeGraceMs?: number;
  /**
   * A request still pending this long after it was made is escalated once to {@link escalateTo}
   * (`escalate_after_minutes`), ms; 0 = never. Default 0.
   */
  escalateAfterMs?: number;
  /** Approver ids told when a request escalates (`escalate_to`); each must be on {@link approvers}. */
  escalateTo?: readonly string[];
  /** Who is asked. An empty list is allowed: then only the CLI and the API can decide. */
  approvers: readonly Approver[];
}

/** The facts of one call that the policy looks at. */
export interface PolicySubject {
  tool: string;
  risk: RiskLevel;
  channel: string;
}

/** What the policy decides for one call. */
export interface ResolvedRequestPolicy {
  waitMs: number;
  requiredApprovals: number;
  forbidSelfApproval: boolean;
  reminderBeforeMs: number;
  executeGraceMs: number;
  alwaysAllowed: boolean;
  approvers: Approver[];
}

/** Default of {@link ApprovalPolicy.executeGraceMs}: 15 minutes. */
export const DEFAULT_EXECUTE_GRACE_MS = 15 * 60 * 1000;
/** Most distinct approvals a request may need. */
export const MAX_REQUIRED_APPROVALS = 10;

/** Checks a policy and fails closed on anything invalid, naming the field and what is allowed. */
export function validateApprovalPolicy(policy: ApprovalPolicy): void {
  positiveMs("waitTimeoutMs", policy.waitTimeoutMs);
  for (const [risk, ms] of Object.entries(policy.waitTimeoutMsByRisk ?? {})) {
    if (!(RISK_LEVELS as readonly string[]).includes(risk)) {
      invalid(`waitTimeoutMsByRisk has unknown risk level "${risk}"; allowed: ${RISK_LEVELS.join(", ")}`);
    }
    positiveMs(`waitTimeoutMsByRisk.${risk}`, ms);
  }
  for (const [channel, ms] of Object.entries(policy.waitTimeoutMsByChannel ?? {})) {
    positiveMs(`waitTimeoutMsByChannel.${channel}`, ms);
  }
  for (const [key, n] of Object.entries(policy.requiredApprovals ?? {})) {
    if (!Number.isInteger(n) || n < 1 || n > MAX_REQUIRED_APPROVALS) {
      invalid(
        `requiredApprovals.${key} must be a whole number from 1 to ${MAX_REQUIRED_APPROVALS}, got ${n}`,
      );
    }
  }
  const reminder = policy.reminderBeforeMs ?? 0;
  if (!Number.isSafeInteger(reminder) || reminder < 0) {
    invalid(`reminderBeforeMs must be a whole number of ms >= 0, got ${reminder}`);
  }
  positiveMs("executeGraceMs", policy.executeGraceMs ?? DEFAULT_EXECUTE_GRACE_MS);
  const escalateAfter = policy.escalateAfterMs ?? 0;
  if (!Number.isSafeInteger(escalateAfter) || escalateAfter < 0) {
    invalid(`escalateAfterMs must be a whole number of ms >= 0, got ${escalateAfter}`);
  }
  for (const name of policy.escalateTo ?? []) {
    if (!policy.approvers.some((a) => sameIdentity(a.id, name))) {
      invalid(`escalateTo names "${name}", who is not on the approvers list`);
    }
  }
  if (escalateAfter > 0 && (policy.escalateTo ?? []).length === 0) {
    invalid("escalateAfterMs is set but escalateTo names nobody");
  }
  const seen = new Set<string>();
  for (const approver of policy.approvers) {
    if (typeof approver.id !== "string" || approver.id.length === 0 || approver.id.length > 512) {
      invalid(`approver ids must be 1-512 characters, got ${JSON.stringify(approver.id)}`);
    }
    // One person, one entry: ids equal after normalisation would be two votes of one person.
    const key = normaliseIdentity(approver.id);
    if (key.length === 0) invalid(`approver id ${JSON.stringify(approver.id)} has no visible characters`);
    if (seen.has(key))
      invalid(
        `approver "${approver.id}" is listed twice (ids are compared ignoring case, spacing and Unicode width)`,
      );
    seen.add(key);
  }
}

/**
 * The policy for one call: the wait (channel override, else risk override, else the default),
 * the required approvals (the largest entry matching the tool name or the risk level, so a stricter
 * entry is never shadowed), and whether `approve_always` is offered (exec only: an allow-always
 * record never applies to a dangerous call, and other risks do not ask twice).
 */
export function resolveRequestPolicy(policy: ApprovalPolicy, subject: PolicySubject): ResolvedRequestPolicy {
  const waitMs =
    policy.waitTimeoutMsByChannel?.[subject.channel] ??
    policy.waitTimeoutMsByRisk?.[subject.risk] ??
    policy.waitTimeoutMs;
  const required = Math.max(
    1,
    policy.requiredApprovals?.[subject.tool] ?? 1,
    policy.requiredApprovals?.[subject.risk] ?? 1,
  );
  return {
    waitMs,
    requiredApprovals: required,
    forbidSelfApproval: policy.forbidSelfApproval ?? false,
    reminderBeforeMs: policy.reminderBeforeMs ?? 0,
    executeGraceMs: policy.executeGraceMs ?? DEFAULT_EXECUTE_GRACE_MS,
    alwaysAllowed: subject.risk === "exec",
    approvers: policy.approvers.map((a) => ({ id: a.id, email: a.email })),
  };
}

function positiveMs(what: string, value: unknown): void {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    invalid(`${what} must be a positive whole number of ms, got ${String(value)}`);
  }
}

function invalid(message: string): never {
  throw new RunnerError("APPROVAL_INPUT_INVALID", `approval policy: ${message}`);
}
