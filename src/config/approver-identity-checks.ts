import type { z } from "zod";
import { normaliseIdentity } from "../shared/index.js";
import { areConfusable } from "./confusable-skeleton.js";

/** The part of the config the identity checks read (the schema's output type, kept structural). */
export interface IdentityCheckInput {
  approvers: readonly { id: string; email?: string | undefined; slack_user_id?: string | undefined }[];
  schedules: readonly { id: string; owner: string }[];
  operator: string;
  permissions: {
    approval: { forbid_self_approval: boolean; required_approvals: Readonly<Record<string, number>> };
  };
}

/** An email address as a mailbox is compared: NFKC, trimmed, case-insensitive. */
const normaliseEmail = (email: string): string => email.normalize("NFKC").trim().toLowerCase();

const listOf = (ids: readonly string[]): string =>
  ids.length ? ids.map((id) => `"${id}"`).join(", ") : "none";

/**
 * One person, one vote: two approvers sharing a mailbox would both receive (and click) links that
 * reach the same person, so an address may belong to one approver only.
 */
function checkSharedEmails(input: IdentityCheckInput, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  input.approvers.forEach((approver, i) => {
    if (approver.email === undefined) return;
    const key = normaliseEmail(approver.email);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
      return;
    }
    ctx.addIssue({
      code: "custom",
      path: ["approvers", i, "email"],
      message: `is also the address of approvers[${first}] ("${input.approvers[first]?.id}"): every approver needs a mailbox of their own (addresses are compared ignoring case and surrounding spaces), or two entries are two votes of one person`,
    });
  });
}

/**
 * One Slack user, one approver: a click is mapped to the approver by the clicker's Slack user id,
 * so an id listed twice would make one person's click count for whichever entry came first (and
 * the other entry's person could never decide in Slack). Compared upper-cased after NFKC.
 */
function checkSharedSlackIds(input: IdentityCheckInput, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  input.approvers.forEach((approver, i) => {
    if (approver.slack_user_id === undefined) return;
    const key = approver.slack_user_id.normalize("NFKC").trim().toUpperCase();
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
      return;
    }
    ctx.addIssue({
      code: "custom",
      path: ["approvers", i, "slack_user_id"],
      message: `is also the Slack user of approvers[${first}] ("${input.approvers[first]?.id}"): a Slack user id maps to one approver only, or one person's click would be two entries' vote; allowed: each approver's own Slack member id`,
    });
  });
}

/**
 * Ids, owners and the operator that look like another approver's id but are not the same identity
 * (UTS #39 skeletons): a Cyrillic `а` in an owner would escape forbid_self_approval while reading
 * the same in every mail, page and audit line.
 */
function checkConfusables(input: IdentityCheckInput, ctx: z.RefinementCtx): void {
  const approvers = input.approvers;
  const lookalike = (name: string, before = approvers.length): number =>
    approvers.slice(0, before).findIndex((a) => areConfusable(name, a.id));
  const allowed = "an id that is written exactly as the approver's, or one that does not look like it";
  approvers.forEach((approver, i) => {
    const j = lookalike(approver.id, i);
    if (j >= 0)
      ctx.addIssue({
        code: "custom",
        path: ["approvers", i, "id"],
        message: `looks like the id of approvers[${j}] ("${approvers[j]?.id}") but is a different name (Unicode confusables, UTS #39): two people who read the same are refused; allowed: ${allowed}`,
      });
  });
  input.schedules.forEach((schedule, i) => {
    const j = lookalike(schedule.owner);
    if (j >= 0)
      ctx.addIssue({
        code: "custom",
        path: ["schedules", i, "owner"],
        message: `looks like approver "${approvers[j]?.id}" (approvers[${j}]) but is a different name (Unicode confusables, UTS #39), so self-approval and owner notices would miss that person; allowed: ${allowed}`,
      });
  });
  const j = input.operator === "" ? -1 : lookalike(input.operator);
  if (j >= 0)
    ctx.addIssue({
      code: "custom",
      path: ["operator"],
      message: `looks like approver "${approvers[j]?.id}" (approvers[${j}]) but is a different name (Unicode confusables, UTS #39); allowed: ${allowed}`,
    });
}

/**
 * With forbid_self_approval the owner of a schedule is barred from its runs' calls by identity: an
 * owner that is no approver's id bars nobody, and its person could approve under their own id.
 */
function checkOwnersAreApprovers(input: IdentityCheckInput, ctx: z.RefinementCtx): void {
  if (!input.permissions.approval.forbid_self_approval) return;
  const ids = new Set(input.approvers.map((a) => normaliseIdentity(a.id)));
  input.schedules.forEach((schedule, i) => {
    if (ids.has(normaliseIdentity(schedule.owner))) return;
    ctx.addIssue({
      code: "custom",
      path: ["schedules", i, "owner"],
      message: `is not the id of any approver, and permissions.approval.forbid_self_approval is on: the owner must name an approvers entry so the bar applies to them; allowed: ${listOf(input.approvers.map((a) => a.id))}`,
    });
  });
}

/**
 * A quorum the listed people cannot reach only ever expires. Every approver may decide; with
 * forbid_self_approval the run's owner may not, and any approver can own a run (a schedule they
 * author, a run they start from the CLI), so N approvers meet at most N - 1. The implicit quorum of
 * one is checked too: a single approver with forbid_self_approval can never approve their own runs.
 */
function checkQuorums(input: IdentityCheckInput, ctx: z.RefinementCtx): void {
  const { forbid_self_approval: selfBarred, required_approvals: required } = input.permissions.approval;
  const listed = input.approvers.length;
  const reachable = selfBarred ? Math.max(0, listed - 1) : listed;
  const why = selfBarred
    ? `${listed} approver(s) are listed and permissions.approval.forbid_self_approval is on, so a run owned by one of them can collect at most ${reachable}`
    : `only ${listed} approver(s) are listed`;
  for (const [key, n] of Object.entries(required)) {
    if (n <= reachable) continue;
    ctx.addIssue({
      code: "custom",
      path: ["permissions", "approval", "required_approvals", key],
      message: `needs ${n} distinct approvers, but ${why}: such a request can only expire; allowed: at most ${reachable}, or list more approvers`,
    });
  }
  const owned = input.schedules.filter((s) =>
    input.approvers.some((a) => normaliseIdentity(a.id) === normaliseIdentity(s.owner)),
  );
  if (selfBarred && listed === 1 && owned.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: ["permissions", "approval", "forbid_self_approval"],
      message: `bars the only approver ("${input.approvers[0]?.id}") from the runs they own (schedules ${owned.map((s) => s.id).join(", ")}), so every approval those runs ask for can only expire; allowed: false, or list a second approver`,
    });
  }
}

/**
 * The identity checks across keys: shared mailboxes, look-alike ids and owners,
 * owners that must be approvers, and quorums nobody can reach. Each problem names its key.
 */
export function checkApproverIdentities(input: IdentityCheckInput, ctx: z.RefinementCtx): void {
  checkSharedEmails(input, ctx);
  checkSharedSlackIds(input, ctx);
  checkConfusables(input, ctx);
  checkOwnersAreApprovers(input, ctx);
  checkQuorums(input, ctx);
}
