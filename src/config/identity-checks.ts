import type { z } from "zod";
import { checkApproverIdentities, type IdentityCheckInput } from "./approver-identity-checks.js";
import { checkEscalation, type EscalationCheckInput } from "./escalation-checks.js";
import { checkConfigWebhooks, type WebhookCheckInput } from "./webhook-checks.js";

/**
 * The config-time identity checks that need only the config: shared mailboxes,
 * look-alike ids and owners, shared Slack user ids, escalation lists, owners that must be approvers, unreachable quorums, and webhook URLs
 * written in config that point inside. The approvers' chat webhook URLs live in the environment and
 * are checked by `envWebhookProblems` (env-webhook-checks.ts) when the config is loaded.
 */
export function checkIdentitiesAndWebhooks(
  config: IdentityCheckInput & WebhookCheckInput & EscalationCheckInput,
  ctx: z.RefinementCtx,
): void {
  checkApproverIdentities(config, ctx);
  checkEscalation(config, ctx);
  checkConfigWebhooks(config, ctx);
}
