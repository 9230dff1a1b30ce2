import type { z } from "zod";
import { checkApproverIdentities, type IdentityCheckInput } from "./approver-identity-checks.js";

/**
 * The config-time identity checks of issue 30 item 5 that need only the config: shared mailboxes,
 * look-alike ids and owners, owners that must be approvers, unreachable quorums.
 */
export function checkIdentitiesAndWebhooks(config: IdentityCheckInput, ctx: z.RefinementCtx): void {
  checkApproverIdentities(config, ctx);
}
