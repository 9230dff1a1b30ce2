import type { z } from "zod";
import { normaliseIdentity } from "../shared/index.js";
import { addConfigIssue } from "./config-issue.js";
import { definedKeys } from "./reference-checks.js";

/** What {@link checkAlertReferences} reads of a parsed config (structural: schema.ts calls it). */
export interface AlertReferencedConfig {
  readonly approvers: readonly { readonly id: string; readonly email?: string | undefined }[];
  readonly alerts: { readonly approvers: readonly string[] };
}

/**
 * Every name in `alerts.approvers` must be an `approvers` entry (compared as identities are), so a
 * typo fails `config check` and `start` instead of leaving a person unalerted. An entry without an
 * `email` is a problem too: alerts reach people by mail.
 */
export function checkAlertReferences(config: AlertReferencedConfig, ctx: z.RefinementCtx): void {
  config.alerts.approvers.forEach((id, i) => {
    const entry = config.approvers.find((a) => normaliseIdentity(a.id) === normaliseIdentity(id));
    if (!entry) {
      addConfigIssue(
        ctx,
        ["alerts", "approvers", i],
        id,
        `is not an entry of approvers ${definedKeys(config.approvers.map((a) => a.id))}`,
      );
    } else if (!entry.email) {
      addConfigIssue(
        ctx,
        ["alerts", "approvers", i],
        id,
        "has no email in approvers: alerts are mailed; add approvers[].email or remove the name",
      );
    }
  });
}
