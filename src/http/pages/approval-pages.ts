import escapeHtml from "escape-html";
import {
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStory,
  formatTime,
  renderArgs,
  requestFacts,
} from "../../approvals/index.js";
import { assertNever, makeVisible } from "../../shared/index.js";
import { execPlaceSection, stepsList, storySection } from "./approval-story.js";

/**
 * HTML of the approval pages. Every dynamic value passes through escape-html; the pages carry no
 * script and no inline style (the stylesheet is a same-origin route), so the strict CSP holds.
 */

/** The stylesheet served at `${basePath}/assets/approval.css`. */
export const APPROVAL_CSS = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font-family:system-ui,sans-serif;max-width:48rem;margin:1rem auto;padding:0 1rem;color:#1b1b1b;background:#fff;line-height:1.45;overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:.5rem 0}h2{font-size:1.1rem;margin-top:1.5rem}h3{font-size:1rem;margin:1.1rem 0 .4rem}
table{border-collapse:collapse;max-width:100%}th{text-align:left;padding:.2rem 1rem .2rem 0;vertical-align:top;color:#4a4a4a;white-space:nowrap;overflow-wrap:normal}td{padding:.2rem 0;overflow-wrap:anywhere;word-break:break-word}
pre{background:#f4f4f4;padding:.75rem;max-width:100%;max-height:60vh;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-all;border:1px solid #ccc;margin:.5rem 0}
code{word-break:break-all}textarea{width:100%;min-height:3rem;font:inherit;padding:.4rem}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}
.buttons{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:.75rem}button{font-size:1rem;padding:.65rem 1.2rem;min-height:2.75rem;cursor:pointer;border-radius:.3rem}
.approve{background:#1f7a33;color:#fff;border:0}.deny{background:#a32020;color:#fff;border:0}.always{background:#fff;color:#1b1b1b;border:1px solid #1f7a33}
button:focus-visible,a:focus-visible,textarea:focus-visible{outline:3px solid #1a56c4;outline-offset:2px}
.status{font-weight:600}.notice{background:#fff7d6;padding:.5rem .75rem;border:1px solid #e6d27a}
.decide{border:1px solid #ccc;padding:.75rem;margin:1rem 0;border-radius:.3rem}
.muted{color:#4a4a4a}.warning{background:#fff7d6;border-left:4px solid #b58a00;padding:.4rem .6rem;margin:.4rem 0;font-size:.95rem}
blockquote{margin:.4rem 0;padding:.5rem .75rem;white-space:pre-wrap;max-height:24rem;overflow:auto;overflow-wrap:anywhere}
.quoted{border-left:4px solid #999;background:#f7f7f7}.agent-text{border-left:4px solid #b58a00;background:#fffbea}
.steps{list-style:none;padding-left:0}.steps li{margin:.45rem 0}.summary{background:#f4f4f4;padding:0 .2rem}
.verdict-allow{color:#1f6b2e;font-weight:600}.verdict-deny{color:#a32020;font-weight:600}.verdict-ask{color:#7a5300;font-weight:600}
@media (max-width:30rem){body{padding:0 .75rem}h1{font-size:1.25rem}pre#args{max-height:11rem}th{padding-right:.6rem}.buttons{gap:.5rem}.buttons button{flex:1 1 auto;padding:.6rem .7rem}}`;

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
  /** The run's story, read from the journal for this render; null when it could not be read. */
  story?: ApprovalStory | null;
}

/**
 * The page a link opens while the request is pending: the exact call and the decision at the top,
 * then the request's facts and the run's story below.
 */
export function confirmationPage(input: ConfirmationPageInput): string {
  const { record, approver, basePath } = input;
  const others = record.approvers.map(
    (a) => `<li>${escapeHtml(a.id)}${a.id === approver ? " (you)" : ""}</li>`,
  );
  const always = record.alwaysAllowed
    ? `<button type="submit" name="decision" value="approve_always" class="always" id="approve-always">Approve always</button>`
    : "";
  const action = `${basePath}/approvals/${encodeURIComponent(record.id)}/decision`;
  const stepsHref = `${basePath}/approvals/${encodeURIComponent(record.id)}/steps?t=${encodeURIComponent(input.token)}`;
  return page(
    `Approve ${makeVisible(record.tool)}?`,
    basePath,
    `<h1>Approve this ${escapeHtml(makeVisible(record.tool))} call?</h1>
<p>Agent <b>${escapeHtml(makeVisible(record.agent))}</b> is waiting. Opening this page changed nothing; the call runs only if approved before ${escapeHtml(formatTime(record.deadline))}.</p>
${callSection(record)}
${execPlaceSection(input.story ?? null)}
<form method="post" action="${escapeHtml(action)}" class="decide" aria-label="Your decision">
<input type="hidden" name="t" value="${escapeHtml(input.token)}">
<input type="hidden" name="nonce" value="${escapeHtml(input.nonce)}">
<label for="comment">Comment (optional)</label>
<textarea id="comment" name="comment" maxlength="2000"></textarea>
<div class="buttons">
<button type="submit" name="decision" value="approve" class="approve" id="approve">Approve once</button>
${always}
<button type="submit" name="decision" value="deny" class="deny" id="deny">Deny</button>
</div>
</form>
<h2>The request</h2>
${factsTable(record)}
<h2>Who may decide</h2><ul id="approvers">${others.join("")}</ul>
<p>Approvals needed: ${record.requiredApprovals}.</p>${decisionsList(record)}
${input.story === undefined ? "" : storySection(input.story, stepsHref)}`,
  );
}

/** Most steps the steps page lists (a run may have thousands). */
const STEPS_PAGE_MAX = 500;

/** The full list of a run's earlier steps (`GET /approvals/:id/steps?t=`), most recent first. */
export function stepsPage(
  record: ApprovalRecord,
  story: ApprovalStory | null,
  backHref: string,
  basePath: string,
): string {
  return page(
    `Earlier steps of run ${record.runId}`,
    basePath,
    `<h1>Earlier steps of this run</h1>
<p>Before agent <b>${escapeHtml(record.agent)}</b> asked for this <code>${escapeHtml(record.tool)}</code> call. <a href="${escapeHtml(backHref)}" id="back">Back to the request</a></p>
${
  story === null
    ? `<p class="muted">The run's steps could not be read right now.</p>`
    : `${stepsList(story.steps.slice(0, STEPS_PAGE_MAX))}${
        story.steps.length > STEPS_PAGE_MAX
          ? `<p class="muted">${story.steps.length - STEPS_PAGE_MAX} older steps are not shown; <code>echo-runner jobs show ${escapeHtml(record.runId)}</code> lists them all.</p>`
          : ""
      }`
}`,
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
