import { z } from "zod";
import { RISK_LEVELS } from "../../catalog/index.js";

/** Statuses of an approval request. Only `pending` can change; the others are final. */
export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired", "cancelled"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** What one person's vote records: an allow-always answer is an `approve` of kind `always`. */
export const APPROVAL_VOTES = ["approve", "deny"] as const;
export type ApprovalVote = (typeof APPROVAL_VOTES)[number];

/** What a person may answer (seed 002: allow-once | allow-always | deny). */
export const APPROVAL_DECISIONS = [...APPROVAL_VOTES, "approve_always"] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** How a decision reached the store. */
export const DECISION_CHANNELS = ["link", "cli", "api", "slack"] as const;
export type DecisionChannel = (typeof DECISION_CHANNELS)[number];

/** HTTP methods recorded in the fetch log. */
export const FETCH_METHODS = ["GET", "HEAD", "POST"] as const;

/** One recorded decision of one person. */
export const DecisionEntry = z
  .object({
    /** Approver id (token holder) or operator identity (CLI / API). */
    by: z.string().min(1),
    /** When, ms since the epoch. */
    at: z.number().int().nonnegative(),
    decision: z.enum(APPROVAL_VOTES),
    /** `always` asks for an allow-always record (exec only); null for a deny. */
    kind: z.enum(["once", "always"]).nullable(),
    comment: z.string(),
    via: z.enum(DECISION_CHANNELS),
  })
  .strict();
export type DecisionEntry = z.infer<typeof DecisionEntry>;

/** One fetch of a link (GET, HEAD or POST), so mail-scanner traffic is visible. */
export const FetchEntry = z
  .object({
    at: z.number().int().nonnegative(),
    method: z.enum(FETCH_METHODS),
    ip: z.string(),
    userAgent: z.string(),
    /** The approver whose token was presented, or null when the token did not match. */
    approver: z.string().nullable(),
  })
  .strict();
export type FetchEntry = z.infer<typeof FetchEntry>;

/** A person who may decide. Without an email, they decide through the CLI or the API. */
export const Approver = z.object({ id: z.string().min(1), email: z.string().nullable() }).strict();
export type Approver = z.infer<typeof Approver>;

/**
 * The immutable part of a request, written once by `register` as JSON (field `req`) and never
 * re-encoded by Lua (cjson would turn `[]` into `{}`).
 */
export const ApprovalRequestFields = z
  .object({
    v: z.literal(1),
    id: z.string().min(1),
    idempotencyKey: z.string().min(1),
    jobId: z.string().min(1),
    /** Execution id of the run that parked. */
    runId: z.string().min(1),
    traceId: z.string().min(1),
    tool: z.string().min(1),
    /** The exact arguments, canonical JSON (keys sorted): what the hash covers. */
    argsCanonical: z.string(),
    /** Hex SHA-256 of `argsCanonical`. */
    argsHash: z.string().regex(/^[0-9a-f]{64}$/),
    risk: z.enum(RISK_LEVELS),
    /** Guard flags that made the gate ask (rule ids). */
    flags: z.array(z.string()),
    /** The gate's reason, shown to the approver. */
    reason: z.string(),
    agent: z.string(),
    scheduleId: z.string().nullable(),
    parentRunId: z.string().nullable(),
    /** The run's owner (schedule author or user who started it), for `forbid_self_approval`. */
    owner: z.string().nullable(),
    /** Origin channel of the run ("cron", "cli", ...). */
    channel: z.string(),
    requestedAt: z.number().int().nonnegative(),
    /** After this instant (ms) no decision is accepted and the request counts as expired. */
    deadline: z.number().int().positive(),
    /** When a reminder is due (ms), or null for none. */
    remindAt: z.number().int().nonnegative().nullable(),
    requiredApprovals: z.number().int().min(1).max(10),
    forbidSelfApproval: z.boolean(),
    /** Whether `approve_always` is offered (exec-class calls only). */
    alwaysAllowed: z.boolean(),
    approvers: z.array(Approver),
  })
  .strict();
export type ApprovalRequestFields = z.infer<typeof ApprovalRequestFields>;

/** An approval request as read from the store: the immutable request plus its changing state. */
export const ApprovalRecord = ApprovalRequestFields.extend({
  status: z.enum(APPROVAL_STATUSES),
  decisions: z.array(DecisionEntry),
  /** When the status became final, ms, or null while pending. */
  finishedAt: z.number().int().nonnegative().nullable(),
  /** An approved call may start until this instant (ms); null unless approved. */
  executableUntil: z.number().int().nonnegative().nullable(),
  /** When every notification target was reached, or null. The worker re-sends while null. */
  notifiedAt: z.number().int().nonnegative().nullable(),
  /** Targets reached so far ("email:<approver>", "webhook", "log:<approver>"). */
  deliveredTo: z.array(z.string()),
  remindedAt: z.number().int().nonnegative().nullable(),
  /** Newest first, capped. */
  fetches: z.array(FetchEntry),
}).strict();
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

/** The status a record has at `now`: a pending request past its deadline is expired. */
export function effectiveStatus(record: ApprovalRecord, now: number): ApprovalStatus {
  return record.status === "pending" && now >= record.deadline ? "expired" : record.status;
}

/** Who approved (distinct ids, in order) and whether every approval asked for an allow-always record. */
export function approvalOutcome(record: ApprovalRecord): { approvers: string[]; always: boolean } {
  const approvals = record.decisions.filter((d) => d.decision === "approve");
  return {
    approvers: [...new Set(approvals.map((d) => d.by))],
    always: approvals.length > 0 && approvals.every((d) => d.kind === "always"),
  };
}
