import escapeHtml from "escape-html";
import { makeVisible, sameIdentity } from "../../shared/index.js";
import type { ApprovalRecord, Approver } from "../store/index.js";
import {
  formatTime,
  type MessageContent,
  type MessageKind,
  renderArgs,
  requestFacts,
} from "./approval-message.js";

/** True when `approver` is the run's owner and the request forbids self-approval: they get no link. */
export function isBarredOwner(record: ApprovalRecord, approver: Approver): boolean {
  return record.forbidSelfApproval && record.owner !== null && sameIdentity(record.owner, approver.id);
}

/**
 * The mail to the run's owner when self-approval is forbidden: what the call is, that they cannot
 * decide on it, and who can — with no link (a link would only open a form whose every button is
 * refused).
 */
export function composeOwnerNotice(kind: MessageKind, record: ApprovalRecord): MessageContent {
  const deciders = record.approvers.filter((a) => !isBarredOwner(record, a)).map((a) => makeVisible(a.id));
  const who =
    deciders.length > 0
      ? `These people can decide: ${deciders.join(", ")}.`
      : `Nobody else is listed as an approver, so unless someone is added the request expires at ${formatTime(record.deadline)} and counts as denied.`;
  const lead = `${kind === "reminder" ? "Reminder: a" : "A"} run you own (agent "${makeVisible(record.agent)}") is waiting for a person to approve a ${makeVisible(record.tool)} call.`;
  const bar =
    "You cannot decide on your own run's calls (permissions.approval.forbid_self_approval), so this message carries no link.";
  const subject = makeVisible(
    `[echo-runner] ${kind === "reminder" ? "Reminder: " : ""}your run's ${record.tool} call waits for another approver`,
  ).slice(0, 200);
  const facts = requestFacts(record);
  const width = Math.max(...facts.map(([label]) => label.length)) + 2;
  const args = renderArgs(record.argsCanonical);
  const text = [
    lead,
    bar,
    who,
    "",
    ...facts.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`),
    "",
    `Arguments (SHA-256 ${record.argsHash}):`,
    args,
    "",
    `Request id: ${record.id}`,
  ].join("\n");
  const rows = facts.map(
    ([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
  );
  const html = [
    "<!doctype html><html><body>",
    `<p>${escapeHtml(lead)}</p>`,
    `<p><strong>${escapeHtml(bar)}</strong></p>`,
    `<p>${escapeHtml(who)}</p>`,
    `<table>${rows.join("")}</table>`,
    `<p>Arguments (SHA-256 <code>${escapeHtml(record.argsHash)}</code>):</p>`,
    `<pre>${escapeHtml(args)}</pre>`,
    `<p>Request id: <code>${escapeHtml(record.id)}</code></p>`,
    "</body></html>",
  ].join("\n");
  return { subject, text, html };
}
