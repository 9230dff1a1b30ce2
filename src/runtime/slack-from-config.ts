import type { ApprovalStore } from "../approvals/index.js";
import { type EchoRunnerConfig, resolveSecret } from "../config/index.js";
import type { SlackInteractionOptions } from "../http/index.js";
import type { DeepReadonly } from "../shared/index.js";

/**
 * The Slack interactivity of config: the signing secret from `notifications.slack.signing_secret_env`
 * (unset variable: CONFIG_SECRET_MISSING at start; too short: CONFIG_INVALID when the server is
 * built) and the approvers' `slack_user_id`s. Undefined when no secret is configured: the route is
 * not served and the messages carry no buttons.
 */
export function slackInteractionsFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  store: ApprovalStore,
): SlackInteractionOptions | undefined {
  const secretEnv = config.notifications.slack.signing_secret_env;
  if (secretEnv === "") return undefined;
  const signingSecret = resolveSecret(secretEnv, env, "the Slack app's signing secret");
  // Today's config: a user id removed from `approvers` (or moved to someone else) maps as it now reads.
  const byUser = new Map<string, string>();
  for (const approver of config.approvers) {
    if (approver.slack_user_id) byUser.set(approver.slack_user_id, approver.id);
  }
  return { store, signingSecret, approverOf: (slackUserId) => byUser.get(slackUserId) ?? null };
}
