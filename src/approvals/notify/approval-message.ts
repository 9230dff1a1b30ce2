import escapeHtml from "escape-html";
import { hiddenCharactersWarning, makeVisible, neutralise } from "../../shared/index.js";
import type { ApprovalRecord } from "../store/index.js";
import type { ApprovalStory } from "./approval-story.js";
import { consequenceOf } from "./consequence.js";
import { storyHtml, storyTextLines } from "./story-message.js";

/** What a notification is about. */
export const MESSAGE_KINDS = ["request", "reminder", "digest", "escalation"] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** A composed message: subject, plain text and HTML (every value escaped). */
export interface MessageContent {
  subject: string;
  text: string;
  html: string;
}

/** Longest rendering of the arguments in a mail; the page always shows them whole. */
export const MAIL_ARGS_LIMIT = 4000;

/** The personal link of one approver: `${publicUrl}/approvals/<id>?t=<token>`. */
export function approvalLink(publicUrl: string, id: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/approvals/${encodeURIComponent(id)}?t=${encodeURIComponent(token)}`;
}

/**
 * The arguments as a person reads them: the canonical JSON, indented, with every invisible,
 * direction-changing or control character written as its escape (`\u202e`). The result still reads
 * as JSON of the same value, and what it shows is what runs.
 */
export function renderArgs(argsCanonical: string): string {
  try {
    return makeVisible(JSON.stringify(JSON.parse(argsCanonical), null, 2));
  } catch {
    return makeVisible(argsCanonical);
  }
}

/** ISO time in UTC, the form used on pages and in mails. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

/** The labelled facts of a request, in display order (shared by mails and pages). */
export function requestFacts(record: ApprovalRecord): [label: string, value: string][] {
  const facts = requestFactsAsStored(record).map(([label, value]): [string, string] => [
    label,
    makeVisible(value),
  ]);
  const notice = hiddenCharactersNotice(record);
  return notice === null ? facts : [["Warning", notice], ...facts];
}

/**
 * The warning a request needs when its arguments or any shown fact hold invisible,
 * direction-changing or control characters (shown escaped everywhere), or null.
 */
export function hiddenCharactersNotice(record: ApprovalRecord): string | null {
  const shown = [record.argsCanonical, ...requestFactsAsStored(record).map(([, value]) => value)];
  return hiddenCharactersWarning(shown.join("\n"));
}

function requestFactsAsStored(record: ApprovalRecord): [label: string, value: string][] {
  const facts: [string, string][] = [
    ["Tool", record.tool],
    ["Risk", record.risk],
  ];
  const consequence = consequenceOf(record);
  if (consequence !== null) facts.push(["Effect", consequence]);
  facts.push(["Reason", record.reason || "(none given)"]);
  // Findings only (rule ids): a record stored before they were kept apart held the reason here.
  const flags = record.flags.filter((flag) => flag !== record.reason);
  if (flags.length > 0) facts.push(["Flags", flags.join(", ")]);
  facts.push(["Agent", record.agent]);
  if (record.scheduleId !== null) facts.push(["Schedule", record.scheduleId]);
  if (record.parentRunId !== null) facts.push(["Parent run", record.parentRunId]);
  if (record.owner !== null) facts.push(["Owner", record.owner]);
  facts.push(
    ["Run", record.runId],
    ["Requested", formatTime(record.requestedAt)],
    ["Deadline", `${formatTime(record.deadline)} (no decision by then counts as deny)`],
  );
  if (record.requiredApprovals > 1) facts.push(["Approvals needed", String(record.requiredApprovals)]);
  return facts;
}

/**
 * Composes the mail to one approver. `link` is null for channels without personal links (a
 * webhook). The arguments are cut at {@link MAIL_ARGS_LIMIT} characters with a note; their hash
 * always covers the whole call. Everything the runner did not write is neutralised for mail
 * (hidden characters escaped, links defanged, in the text and the HTML part alike, where it is
 * never a link), with a note when that changed the arguments: the page shows them exactly. `story` (read from the journal at send time) adds the run's task,
 * the agent's words and its latest steps below the link.
 */
export function composeMessage(
  kind: MessageKind,
  record: ApprovalRecord,
  link: string | null,
  story: ApprovalStory | null = null,
): MessageContent {
  const exact = renderArgs(record.argsCanonical);
  const rendered = neutralise(exact, "mail");
  const defangedNote =
    rendered === exact
      ? []
      : [
          "(Links in the arguments are shown defanged, as https[:]//…, so no mail client makes them clickable; the page shows the call exactly.)",
        ];
  const args =
    rendered.length > MAIL_ARGS_LIMIT
      ? `${rendered.slice(0, MAIL_ARGS_LIMIT)}\n… (${rendered.length - MAIL_ARGS_LIMIT} more characters: the page shows the whole call)`
      : rendered;
  const lead =
    kind === "reminder"
      ? `Reminder: a request is still waiting for a decision and expires at ${formatTime(record.deadline)}.`
      : kind === "escalation"
        ? `Escalated to you: nobody has settled this request since ${formatTime(record.requestedAt)}; it expires at ${formatTime(record.deadline)}.`
        : `Agent "${neutralise(record.agent, "mail")}" wants to make a call that needs a person's approval.`;
  const replaces = kind === "reminder" || kind === "escalation";
  const subject = neutralise(
    `[echo-runner] ${kind === "reminder" ? "Reminder: " : kind === "escalation" ? "Escalated: " : ""}approve ${record.tool} (${record.risk}) for agent ${record.agent}?`,
    "mail",
  ).slice(0, 200);
  const facts = requestFacts(record).map(([label, value]): [string, string] => [
    label,
    neutralise(value, "mail"),
  ]);
  const width = Math.max(...facts.map(([label]) => label.length)) + 2;
  const text = [
    lead,
    "",
    ...facts.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`),
    "",
    `Arguments (SHA-256 ${record.argsHash}):`,
    args,
    ...defangedNote,
    "",
    ...(link === null
      ? ["Decide with `echo-runner approvals approve|deny <id>` or the JSON API.", `Request id: ${record.id}`]
      : [
          "Review and decide here (this link is personal: do not forward it):",
          link,
          "",
          "Opening the link changes nothing; you decide on the page.",
          ...(replaces ? ["This link replaces the one in the earlier message."] : []),
        ]),
    ...(story === null ? [] : storyTextLines(story)),
  ].join("\n");
  const rows = facts.map(
    ([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
  );
  const html = [
    "<!doctype html><html><body>",
    `<p>${escapeHtml(lead)}</p>`,
    `<table>${rows.join("")}</table>`,
    `<p>Arguments (SHA-256 <code>${escapeHtml(record.argsHash)}</code>):</p>`,
    `<pre>${escapeHtml(args)}</pre>`,
    ...defangedNote.map((note) => `<p>${escapeHtml(note)}</p>`),
    link === null
      ? `<p>Request id: <code>${escapeHtml(record.id)}</code></p>`
      : `<p><a href="${escapeHtml(link)}">Review and decide</a> (this link is personal: do not forward it). Opening it changes nothing; you decide on the page.</p>${
          replaces ? "<p>This link replaces the one in the earlier message.</p>" : ""
        }`,
    story === null ? "" : storyHtml(story),
    "</body></html>",
  ].join("\n");
  return { subject, text, html };
}
