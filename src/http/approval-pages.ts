import escapeHtml from "escape-html";
import {
  type ApprovalRecord,
  type ApprovalStatus,
  formatTime,
  renderArgs,
  requestFacts,
} from "../approvals/index.js";
import { assertNever, makeVisible } from "../shared/index.js";

/**
 * HTML of the approval pages. Every dynamic value passes through escape-html; the pages carry no
 * script and no inline style (the stylesheet is a same-origin route), so the strict CSP holds.
 */

/** The stylesheet served at `${basePath}/assets/approval.css`. */
export const APPROVAL_CSS = `body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:1.5rem}
table{border-collapse:collapse}th{text-align:left;padding:.2rem 1rem .2rem 0;vertical-align:top;color:#555}td{padding:.2rem 0}
pre{background:#f4f4f4;padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-all;border:1px solid #ddd}
code{word-break:break-all}textarea{width:100%;min-height:4rem}
.buttons{display:flex;gap:.75rem;margin-top:1rem}button{font-size:1rem;padding:.5rem 1.2rem;cursor:pointer}
.approve{background:#1f7a33;color:#fff;border:0}.deny{background:#a32020;color:#fff;border:0}.always{background:#fff;border:1px solid #1f7a33}
.status{font-weight:600}.notice{background:#fff7d6;padding:.5rem .75rem;border:1px solid #e6d27a}`;

function page(title: string, basePath: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${escapeHtml(`${basePath}/assets/approval.css`)}">
</head><body><main>
${body}
</main></body></html>`;
}

function factsTable(record: ApprovalRecord): string {
  const rows = requestFacts(record).map(
    ([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
  );
  return `<table class="facts">${rows.join("")}</table>`;
}

function callSection(record: ApprovalRecord): string {
  return `<h2>The exact call</h2>
<pre id="args">${escapeHtml(renderArgs(record.argsCanonical))}</pre>
<p>SHA-256 of the arguments: <code id="args-hash">${escapeHtml(record.argsHash)}</code>. Only a call with exactly these arguments can run under this approval.</p>`;
}

function decisionsList(record: ApprovalRecord): string {
  if (record.decisions.length === 0) return "<p>No decisions yet.</p>";
  const items = record.decisions.map(
    (d) =>
      `<li><b>${escapeHtml(makeVisible(d.by))}</b> ${d.decision === "deny" ? "denied" : d.kind === "always" ? "approved always" : "approved"} at ${escapeHtml(formatTime(d.at))} (via ${escapeHtml(d.via)})${d.comment ? `: “${escapeHtml(makeVisible(d.comment))}”` : ""}</li>`,
  );
  return `<ul id="decisions">${items.join("")}</ul>`;
}

/** Input of {@link confirmationPage}. */
export interface ConfirmationPageInput {
  record: ApprovalRecord;
  approver: string;
  token: string;
  nonce: string;
  basePath: string;
}

/** The page a link opens while the request is pending: everything about the call, and the form. */
export function confirmationPage(input: ConfirmationPageInput): string {
  const { record, approver, basePath } = input;
  const others = record.approvers.map(
    (a) => `<li>${escapeHtml(a.id)}${a.id === approver ? " (you)" : ""}</li>`,
  );
  const always = record.alwaysAllowed
    ? `<button type="submit" name="decision" value="approve_always" class="always">Approve always</button>`
    : "";
  const action = `${basePath}/approvals/${encodeURIComponent(record.id)}/decision`;
  return page(
    `Approve ${makeVisible(record.tool)}?`,
    basePath,
    `<h1>Approve this ${escapeHtml(makeVisible(record.tool))} call?</h1>
<p>Agent <b>${escapeHtml(makeVisible(record.agent))}</b> is waiting for a person. Opening this page changed nothing; the call runs only if enough approvers press Approve before the deadline.</p>
${factsTable(record)}
${callSection(record)}
<h2>Who may decide</h2><ul id="approvers">${others.join("")}</ul>
<p>Approvals needed: ${record.requiredApprovals}.</p>${decisionsList(record)}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="t" value="${escapeHtml(input.token)}">
<input type="hidden" name="nonce" value="${escapeHtml(input.nonce)}">
<label for="comment">Comment (optional)</label>
<textarea id="comment" name="comment" maxlength="2000"></textarea>
<div class="buttons">
<button type="submit" name="decision" value="approve" class="approve" id="approve">Approve once</button>
${always}
<button type="submit" name="decision" value="deny" class="deny" id="deny">Deny</button>
</div>
</form>`,
  );
}

const STATUS_TEXT = (status: ApprovalStatus): string => {
  switch (status) {
    case "pending":
      return "still pending";
    case "approved":
      return "approved";
    case "denied":
      return "denied";
    case "expired":
      return "expired: nobody decided before the deadline, so it counts as denied";
    case "cancelled":
      return "cancelled: its run was cancelled or removed";
    default:
      return assertNever(status, "approval status");
  }
};

/**
 * The state of a request after a decision, a second click, or for a request that is no longer
 * pending: the status, who decided and when. `notice` says what just happened.
 */
export function statusPage(
  record: ApprovalRecord,
  status: ApprovalStatus,
  notice: string,
  basePath: string,
): string {
  return page(
    `Request ${status}`,
    basePath,
    `<h1>${status === "pending" ? "Decision recorded" : "This request is no longer pending"}</h1>
<p class="notice" id="notice">${escapeHtml(notice)}</p>
<p>Status: <span class="status" id="status">${escapeHtml(STATUS_TEXT(status))}</span></p>
<h2>Decisions</h2>${decisionsList(record)}
${factsTable(record)}
${callSection(record)}`,
  );
}

/** A plain error page that names no request: wrong, unknown or malformed links all look the same. */
export function errorPage(title: string, message: string, basePath: string): string {
  return page(title, basePath, `<h1>${escapeHtml(title)}</h1><p id="notice">${escapeHtml(message)}</p>`);
}
