import { assertNever, RunnerError } from "../../shared/index.js";
import { APPROVAL_DECISIONS, type ApprovalDecision, type ApprovalRecord } from "./record.js";

/**
 * Who decides: the holder of a link token, an operator through the CLI or the API, or an approver
 * who clicked a button in Slack (`id` the approver their verified Slack user id maps to today,
 * `slackUserId` that user id, for the record's comment-free trail in logs).
 */
export type DecisionActor =
  | { kind: "token"; token: string }
  | { kind: "operator"; id: string; via: "cli" | "api" }
  | { kind: "slack"; id: string; slackUserId: string };

/** Input of `ApprovalStore.decide`. */
export interface DecideInput {
  id: string;
  actor: DecisionActor;
  decision: ApprovalDecision;
  /** Optional free text, at most {@link MAX_COMMENT_LENGTH} characters. */
  comment?: string;
}

/** Why a decision was not recorded. */
export const DECIDE_REFUSALS = [
  "not_found",
  "token_invalid",
  "token_used",
  "token_replaced",
  "not_pending",
  "expired",
  "self_approval",
  "always_not_allowed",
  "already_voted",
  "not_an_approver",
  "approver_removed",
] as const;
export type DecideRefusal = (typeof DECIDE_REFUSALS)[number];

/**
 * What `decide` did. `decided`: this person's decision is recorded; `final` says whether it settled
 * the request (a deny, or the last of the required approvals). Any other outcome recorded nothing and
 * carries the current record when the caller may see it (never for an unknown token).
 */
export type DecideResult =
  | { outcome: "decided"; record: ApprovalRecord; final: boolean }
  | { outcome: DecideRefusal; record: ApprovalRecord | null };

/** Longest accepted comment, in characters. */
export const MAX_COMMENT_LENGTH = 2000;

/** Validates a decision and returns the DECIDE script's ARGV from `now` on (after base and id). */
export function decideArgs(
  input: DecideInput,
  tokenHash: string,
  now: number,
  retentionMs: number,
  identity: DecidingIdentity = { by: "", self: false, voted: false },
): string[] {
  if (!(APPROVAL_DECISIONS as readonly string[]).includes(input.decision)) {
    throw new RunnerError(
      "APPROVAL_INPUT_INVALID",
      `decision must be one of ${APPROVAL_DECISIONS.join(", ")}, got ${JSON.stringify(input.decision)}`,
    );
  }
  const comment = input.comment ?? "";
  if (typeof comment !== "string" || comment.length > MAX_COMMENT_LENGTH) {
    throw new RunnerError(
      "APPROVAL_INPUT_INVALID",
      `comment must be text of at most ${MAX_COMMENT_LENGTH} characters`,
    );
  }
  let operator = "";
  let via = "link";
  if (input.actor.kind !== "token") {
    operator = identity.by;
    via = input.actor.kind === "slack" ? "slack" : input.actor.via;
    if (operator.length === 0 || operator.length > 512) {
      throw new RunnerError("APPROVAL_INPUT_INVALID", "the operator identity must be 1-512 characters");
    }
  }
  const verdict = input.decision === "deny" ? "deny" : "approve";
  const kind = input.decision === "deny" ? "" : input.decision === "approve_always" ? "always" : "once";
  return [
    String(now),
    input.actor.kind,
    operator,
    tokenHash,
    verdict,
    kind,
    comment,
    via,
    String(retentionMs),
    identity.self ? "1" : "0",
    identity.voted ? "1" : "0",
  ];
}

/**
 * Who decides, as the store resolved it before the script runs: `by` is the approver's id exactly as
 * configured (never the typed spelling), `self` whether that person is the run's owner and `voted`
 * whether they already decided — both compared after `normaliseIdentity`, which Lua cannot do. The
 * owner and earlier decisions of a request never change, so reading them first is sound; the script
 * still compares `by` exactly, so two decisions racing each other are caught there.
 */
export interface DecidingIdentity {
  by: string;
  self: boolean;
  voted: boolean;
}

/** Maps the DECIDE script's outcome onto a {@link DecideResult}. */
export function toDecideResult(id: string, outcome: string, record: ApprovalRecord | null): DecideResult {
  if (outcome === "decided") {
    if (record === null) throw new RunnerError("INTERNAL", `decide on ${id} returned no record`);
    return { outcome, record, final: record.status !== "pending" };
  }
  if (outcome === "corrupt") {
    throw new RunnerError("APPROVAL_CORRUPT", `approval request ${id} has a corrupt token field`, {
      data: { id },
    });
  }
  if ((DECIDE_REFUSALS as readonly string[]).includes(outcome)) {
    return { outcome: outcome as DecideRefusal, record };
  }
  throw new RunnerError("INTERNAL", `decide on ${id} returned an unknown outcome ${JSON.stringify(outcome)}`);
}

/** A sentence about a refusal, for pages, the CLI and the API. */
export function describeRefusal(outcome: DecideRefusal): string {
  switch (outcome) {
    case "not_found":
    case "token_invalid":
      return "This link is not valid.";
    case "token_used":
      return "This link was already used to decide.";
    case "token_replaced":
      return "This link was replaced by a newer message; use the link in the newest message.";
    case "not_pending":
      return "This request is no longer pending.";
    case "expired":
      return "This request expired before a decision was made.";
    case "self_approval":
      return "The owner of this run may not decide on its own request.";
    case "always_not_allowed":
      return "Approve always is only offered for exec-class calls.";
    case "already_voted":
      return "You have already decided on this request.";
    case "not_an_approver":
      return "Only the people listed as approvers may decide; this identity is not one of them.";
    case "approver_removed":
      return "This link was sent to someone who is no longer on the approvers list, so it decides nothing. Ask a current approver to decide.";
    default:
      return assertNever(outcome, "decide refusal");
  }
}
