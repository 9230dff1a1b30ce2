import { type ApprovalVote, type DecideResult, describeRefusal } from "../../approvals/index.js";
import { assertNever } from "../../shared/index.js";

/** An ephemeral Slack answer: shown to the clicker only, the original message left as it is. */
export interface SlackEphemeral {
  response_type: "ephemeral";
  replace_original: false;
  text: string;
}

/** The action ids of the buttons in the runner's Slack messages, and what each decides. */
export const SLACK_ACTIONS = { echo_approve: "approve", echo_deny: "deny" } as const satisfies Record<
  string,
  ApprovalVote
>;
export type SlackActionId = keyof typeof SLACK_ACTIONS;

export function ephemeral(text: string): SlackEphemeral {
  return { response_type: "ephemeral", replace_original: false, text };
}

/** The answer to a Slack user id that maps to no approver: nothing was decided, and how to fix it. */
export function unknownSlackUserText(slackUserId: string): string {
  return `Nothing was decided: your Slack user (${slackUserId}) is not linked to anyone on this runner's approvers list. Ask the operator to add \`slack_user_id: ${slackUserId}\` to your entry in \`approvers\`.`;
}

/** What the clicker is told about their decision (recorded, or why not). */
export function slackDecisionText(result: DecideResult, decision: ApprovalVote): string {
  if (result.outcome === "decided") {
    const r = result.record;
    const approvals = r.decisions.filter((d) => d.decision === "approve").length;
    if (decision === "deny") return `You denied request ${r.id} (${r.tool}); the run is told at once.`;
    return result.final
      ? `You approved request ${r.id} (${r.tool}); it has the ${r.requiredApprovals} approval(s) it needs and the run resumes.`
      : `Your approval of request ${r.id} (${r.tool}) is recorded: ${approvals} of ${r.requiredApprovals} approvals so far.`;
  }
  const outcome = result.outcome;
  switch (outcome) {
    case "not_found":
    case "token_invalid":
    case "token_used":
    case "token_replaced":
      return "Nothing was decided: the runner knows no pending request for this button (it may have been removed after its retention).";
    case "not_pending":
    case "expired":
    case "self_approval":
    case "always_not_allowed":
    case "already_voted":
    case "not_an_approver":
    case "approver_removed":
      return `Nothing was decided: ${describeRefusal(outcome)}`;
    default:
      return assertNever(outcome, "decide refusal");
  }
}
