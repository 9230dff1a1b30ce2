import type { z } from "zod";
import { normaliseIdentity } from "../shared/index.js";

/** The part of the config the escalation checks read (kept structural, as the other checks). */
export interface EscalationCheckInput {
  approvers: readonly { id: string }[];
  permissions: { approval: { escalate_after_minutes: number; escalate_to: readonly string[] } };
}

/**
 * `permissions.approval.escalate_to` names people on `approvers` (written exactly as listed, so
 * the mail, the audit line and the person agree), each once; an escalation time with nobody to
 * tell, or a list with no time, is a config that does not do what it says, so both are refused.
 */
export function checkEscalation(input: EscalationCheckInput, ctx: z.RefinementCtx): void {
  const { escalate_after_minutes: minutes, escalate_to: to } = input.permissions.approval;
  const ids = input.approvers.map((a) => a.id);
  const listed = ids.length ? ids.map((id) => `"${id}"`).join(", ") : "none";
  const seen = new Set<string>();
  to.forEach((name, i) => {
    const path = ["permissions", "approval", "escalate_to", i];
    if (!ids.includes(name)) {
      ctx.addIssue({
        code: "custom",
        path,
        message: `"${name}" is not the id of any approver, so nobody would be told when a request escalates; allowed: ${listed}`,
      });
    }
    const key = normaliseIdentity(name);
    if (seen.has(key))
      ctx.addIssue({ code: "custom", path, message: `"${name}" is listed twice; list each person once` });
    seen.add(key);
  });
  if (minutes > 0 && to.length === 0) {
    ctx.addIssue({
      code: "custom",
      path: ["permissions", "approval", "escalate_to"],
      message: `is empty while permissions.approval.escalate_after_minutes is ${minutes}: nobody would be told; allowed: approver ids (${listed}), or escalate_after_minutes 0`,
    });
  }
  if (minutes === 0 && to.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: ["permissions", "approval", "escalate_after_minutes"],
      message: `is 0 (never) while permissions.approval.escalate_to lists ${to.length} approver(s): they would never be told; allowed: a number of minutes > 0, or an empty escalate_to`,
    });
  }
}
