import {
  type AllowAlwaysGrant,
  type ApprovalRecord,
  type ApprovalVote,
  type DamagedRecord,
  type FailingTarget,
  isBarredOwner,
  renderArgs,
} from "../../approvals/index.js";
import { QUEUE_STATES, type QueueStateLabel } from "../../metrics/index.js";
import { type DecisionView, type RunDetail, type RunSummary, usageText } from "../../runs/index.js";
import type { DamagedSchedule, ScheduleView } from "../../scheduler/index.js";
import { otelTraceId } from "../../shared/index.js";
import { grantsSection } from "./admin-grants.js";
import { cardTable, esc, header, page, runLink, time } from "./admin-html.js";
import { runActionsSection } from "./admin-run-actions.js";
import { runsTable } from "./admin-run-list.js";

/**
 * HTML of the dashboard. Every dynamic value passes through escape-html; no script and no inline
 * style (the stylesheet is a same-origin route), so the same strict CSP as the approval pages holds.
 * Every form carries the session's CSRF secret.
 */

export const ADMIN_CSS = `body{font-family:system-ui,sans-serif;margin:1.5rem auto;padding:0 1rem;max-width:80rem;color:#1b1b1b;line-height:1.4}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;font-size:.92rem}th,td{text-align:left;padding:.3rem .6rem .3rem 0;vertical-align:top;border-bottom:1px solid #eee}
th{color:#555}pre{background:#f4f4f4;padding:.5rem;margin:0;max-height:12rem;overflow:auto;white-space:pre-wrap;word-break:break-all}
code{word-break:break-all}form.inline{display:inline}button{font-size:.9rem;padding:.3rem .8rem;cursor:pointer}
.approve{background:#1f7a33;color:#fff;border:0}.deny{background:#a32020;color:#fff;border:0}
.notice{background:#fff7d6;padding:.5rem .75rem;border:1px solid #e6d27a}.error{background:#fde8e8;padding:.5rem .75rem;border:1px solid #e6a0a0}
header{display:flex;flex-wrap:wrap;gap:.5rem;justify-content:space-between;align-items:baseline}.muted{color:#666}
label{display:block;margin:.6rem 0 .2rem}input[type=text],input[type=password]{width:20rem;max-width:100%;box-sizing:border-box;padding:.3rem}
select{max-width:100%}.filters .field{display:inline-block;vertical-align:top;margin:0 .8rem .4rem 0;max-width:100%}
.filters label{margin:.3rem 0 .1rem}.filters input[type=text]{width:14rem}
@media (max-width:60rem){table:not(.cards){display:block;max-width:100%;overflow-x:auto}body{margin:.75rem auto;padding:0 .6rem}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:auto}table.cards tr:first-child{display:none}
table.cards tr{border:1px solid #ddd;border-radius:4px;margin:.5rem 0;padding:.3rem .5rem}table.cards td{border:0;padding:.15rem 0}
table.cards td[data-label]::before{content:attr(data-label) ": ";color:#555;font-weight:600}}`;

/** The login form: the operator's own token (its owner is recorded as the approver). */
export function loginPage(basePath: string, error?: string): string {
  return page(
    "echo-runner admin: sign in",
    basePath,
    `<h1>echo-runner admin</h1>
${error ? `<p class="error" id="login-error">${esc(error)}</p>` : ""}
<form method="post" action="${esc(`${basePath}/admin/login`)}">
<label for="token">Your own token (your decisions are recorded under the name it belongs to)</label>
<input type="password" id="token" name="token" required autocomplete="current-password">
<p><button type="submit" id="sign-in">Sign in</button></p>
</form>`,
  );
}

/**
 * A plain error page (unauthorised, not found, bad request). `backLink: false` where the dashboard
 * itself is what cannot be shown (a link back to it would lead to the same page).
 */
export function adminErrorPage(basePath: string, title: string, message: string, backLink = true): string {
  return page(
    title,
    basePath,
    `<h1>${esc(title)}</h1><p>${esc(message)}</p>
${backLink ? `<p><a href="${esc(`${basePath}/admin`)}">Back to the dashboard</a></p>` : ""}`,
  );
}

export interface DashboardData {
  operator: string;
  csrf: string;
  notice: string | null;
  queues: { name: string; depths: Record<QueueStateLabel, number> }[];
  pending: ApprovalRecord[];
  /** Pending requests that cannot be read (APPROVAL_CORRUPT): named in a notice, never given buttons. */
  damagedPending?: readonly DamagedRecord[];
  runs: RunSummary[];
  schedules: ScheduleView[];
  /** Schedules that cannot be read (record or grant): named in a notice; they do not fire. */
  damagedSchedules?: readonly DamagedSchedule[];
  /** The live allow-always grants (omitted when the dashboard has no grant store). */
  grants?: readonly AllowAlwaysGrant[];
  /** Stored allow-always records that cannot be read (they allow nothing): named in a notice. */
  damagedGrants?: readonly DamagedRecord[];
  /** Notification targets that keep failing on pending requests (empty: none). */
  failingTargets?: readonly FailingTarget[];
  now: number;
}

function decisionForm(basePath: string, csrf: string, record: ApprovalRecord, operator: string): string {
  // The buttons the decision would refuse are not offered: the run's owner, where self-approval is
  // forbidden, is told who decides instead.
  if (isBarredOwner(record, { id: operator, email: null }))
    return `<span class="muted" id="barred-${esc(record.id)}">your own run: another approver decides (forbid_self_approval)</span>`;
  const action = esc(`${basePath}/admin/approvals/${record.id}/decision`);
  const button = (decision: ApprovalVote, label: string) =>
    `<form class="inline" method="post" action="${action}"><input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="decision" value="${decision}"><button type="submit" class="${decision}" id="${decision}-${esc(record.id)}">${label}</button></form>`;
  return `${button("approve", "Approve")} ${button("deny", "Deny")}`;
}

export function dashboardPage(basePath: string, data: DashboardData): string {
  const queues = `<table id="queues"><tr><th>queue</th>${QUEUE_STATES.map((s) => `<th>${esc(s)}</th>`).join("")}</tr>
${data.queues
  .map(
    (q) =>
      `<tr><td>${esc(q.name)}</td>${QUEUE_STATES.map((s) => `<td data-state="${esc(s)}">${q.depths[s]}</td>`).join("")}</tr>`,
  )
  .join("\n")}</table>`;

  const damagedPending = data.damagedPending ?? [];
  const pending =
    data.pending.length === 0
      ? damagedPending.length === 0
        ? `<p class="muted" id="no-pending">No approval is waiting.</p>`
        : ""
      : cardTable(
          "pending",
          ["tool", "risk", "reason", "arguments", "run", "agent / owner", "requested", "deadline", ""],
          data.pending.map((r) => ({
            attrs: ` id="approval-${esc(r.id)}"`,
            cells: [
              `<code>${esc(r.tool)}</code>`,
              esc(r.risk),
              esc(r.reason),
              `<pre>${esc(renderArgs(r.argsCanonical))}</pre>`,
              runLink(basePath, r.runId),
              `${esc(r.agent)} / ${esc(r.owner ?? "")}`,
              esc(time(r.requestedAt)),
              esc(time(r.deadline)),
              decisionForm(basePath, data.csrf, r, data.operator),
            ],
          })),
        );

  const runs =
    data.runs.length === 0
      ? `<p class="muted">No runs yet.</p>`
      : `${runsTable(basePath, data.runs)}
<p><a href="${esc(`${basePath}/admin/runs`)}" id="all-runs">All runs, with filters</a></p>`;

  const damagedSchedules = data.damagedSchedules ?? [];
  const schedules =
    data.schedules.length === 0
      ? damagedSchedules.length === 0
        ? `<p class="muted">No schedules.</p>`
        : ""
      : `<table id="schedules"><tr><th>schedule</th><th>cron</th><th>time zone</th><th>enabled</th><th>next run</th><th>owner</th><th>cron grant</th></tr>
${data.schedules
  .map(
    (
      v,
    ) => `<tr><td><code>${esc(v.schedule.id)}</code></td><td><code>${esc(v.schedule.cron)}</code></td><td>${esc(v.schedule.timezone)}</td>
<td>${v.schedule.enabled ? "yes" : "paused"}</td><td>${esc(time(v.nextTick))}</td><td>${esc(v.schedule.owner)}</td>
<td>${v.authorization.cronAuthorized ? "authorised" : `not authorised (${esc(v.authorization.reason)})`}</td></tr>`,
  )
  .join("\n")}</table>`;

  return page(
    "echo-runner admin",
    basePath,
    `${header(basePath, data.operator, data.csrf)}
${data.notice ? `<p class="notice" id="notice">${esc(data.notice)}</p>` : ""}
<h2>Queues</h2>${queues}
<h2>Pending approvals</h2>${damagedNotice("damaged-approvals", "pending approval request", damagedPending, "neither approved nor asked again, and not decidable here")}${pending}
<h2>Recent runs</h2>${runs}
<h2>Schedules</h2>${damagedNotice("damaged-schedules", "schedule", damagedSchedules, "neither fired nor changed here")}${schedules}
${data.grants === undefined ? "" : `<h2>Allow-always grants</h2>${damagedNotice("damaged-grants", "allow-always record", data.damagedGrants ?? [], "it allows nothing")}${grantsSection(basePath, data.csrf, data.grants)}`}
${failingTargetsSection(data.failingTargets ?? [])}
<p class="muted">As of ${esc(time(data.now))}. Reload for fresh numbers.</p>`,
  );
}

/**
 * Stored records a section could not read, each with its id and what is wrong: shown above the
 * readable ones so one damaged record neither hides them nor is hidden itself. They get no buttons.
 */
function damagedNotice(
  id: string,
  what: string,
  damaged: readonly { id: string; code: string; message: string }[],
  consequence: string,
): string {
  if (damaged.length === 0) return "";
  const items = damaged.map(
    (d) => `<li data-id="${esc(d.id)}"><code>${esc(d.id)}</code> ${esc(d.code)}: ${esc(d.message)}</li>`,
  );
  const count = `${damaged.length} ${what}${damaged.length === 1 ? "" : "s"}`;
  return `<div class="error" id="${esc(id)}"><p>${esc(count)} cannot be read: ${esc(consequence)}. Inspect or delete ${damaged.length === 1 ? "it" : "them"} in Redis.</p>
<ul>${items.join("\n")}</ul></div>`;
}

/** Targets whose sends keep failing: their approvers see no link until someone fixes them. */
function failingTargetsSection(targets: readonly FailingTarget[]): string {
  if (targets.length === 0) return "";
  const rows = targets.map(
    (t) =>
      `<tr><td><code>${esc(t.target)}</code></td><td>${esc(t.failures)}</td><td>${esc(t.requests)}</td><td>${esc(time(t.nextAt))}</td></tr>`,
  );
  return `<h2>Notification targets failing</h2>
<p class="warn">These targets failed to take notifications several times in a row: their approvers get no link until the target is fixed (check the webhook URL or mailbox; \`echo-runner doctor\` lists them too).</p>
<table id="failing-targets"><tr><th>target</th><th>failures in a row</th><th>pending requests</th><th>next try</th></tr>
${rows.join("\n")}</table>`;
}

function decisionRow(d: DecisionView): string {
  const what =
    d.kind === "decision"
      ? `${esc(d.verdict)} at step ${esc(d.step)}`
      : `${esc(d.outcome)} in ${esc(d.durationMs)} ms${d.isReplay ? " (replay)" : ""}`;
  return `<tr><td>${esc(time(d.at))}</td><td>${esc(d.kind)}</td><td><code>${esc(d.tool)}</code></td><td>${what}</td>
<td>${esc(d.approvalSource ?? "")}${d.approver ? ` (${esc(d.approver)})` : ""}</td><td>${esc(d.reason ?? "")}</td></tr>`;
}

/** One run: its summary, audit entries (decisions and executions), approvals and journal. */
export function runPage(
  basePath: string,
  operator: string,
  csrf: string,
  detail: RunDetail,
  notice: string | null = null,
  withActions = false,
): string {
  const run = detail.run;
  const facts: [string, unknown][] = [
    ["outcome", run?.outcomeText],
    // BullMQ's word for the job (a parked run's job is `delayed`, a cancelled one's `failed`).
    ["queue state", run?.state],
    ["agent", run?.agent],
    ["task", detail.task],
    ["model", detail.model],
    ["unattended", detail.unattended],
    ["schedule", run?.scheduleId],
    ["created", time(run?.created)],
    ["finished", time(run?.finished)],
    ["usage", usageText(run?.usage) || null],
    // The id a trace viewer (Jaeger, Tempo, Honeycomb, Langfuse) finds the run's spans by.
    ["trace id", run?.traceId ? otelTraceId(run.traceId) : null],
    ["detail", run?.detail],
  ];
  const audit =
    detail.decisions.length === 0
      ? `<p class="muted">No audit entries.</p>`
      : `<table id="audit"><tr><th>at</th><th>kind</th><th>tool</th><th>verdict / outcome</th><th>approval</th><th>reason</th></tr>
${detail.decisions.map(decisionRow).join("\n")}</table>`;
  const approvals =
    detail.approvals.length === 0
      ? `<p class="muted">No approval requests.</p>`
      : `<table id="approvals"><tr><th>tool</th><th>status</th><th>requested</th><th>finished</th><th>decisions</th></tr>
${detail.approvals
  .map(
    (
      a,
    ) => `<tr><td><code>${esc(a.tool)}</code></td><td class="approval-status">${esc(a.status === "expired" ? "expired (denied: nobody decided in time)" : a.status)}</td><td>${esc(time(a.requestedAt))}</td><td>${esc(time(a.finishedAt))}</td>
<td>${a.decisions.map((d) => `${esc(d.decision)} by ${esc(d.by)} (${esc(d.via)})`).join("; ")}</td></tr>`,
  )
  .join("\n")}</table>`;
  const journal =
    detail.journal.length === 0
      ? `<p class="muted">No journalled tool calls.</p>`
      : `<table id="journal"><tr><th>tool</th><th>status</th><th>attempt</th><th>result</th></tr>
${detail.journal
  .map(
    (j) =>
      `<tr><td><code>${esc(j.tool)}</code></td><td>${esc(j.status)}</td><td>${esc(j.attempt)}</td><td><pre>${esc(
        j.result === null ? "" : JSON.stringify(j.result, null, 2),
      )}</pre></td></tr>`,
  )
  .join("\n")}</table>`;
  return page(
    `run ${detail.runId}`,
    basePath,
    `${header(basePath, operator, csrf)}
<h2>Run <code>${esc(detail.runId)}</code></h2>
${notice ? `<p class="notice" id="notice">${esc(notice)}</p>` : ""}
<table id="run-facts">${facts.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join("")}</table>
${detail.notes.map((n) => `<p class="notice">${esc(n)}</p>`).join("")}
${withActions ? runActionsSection(basePath, csrf, detail) : ""}
<h2>Decisions and executions (audit trail)</h2>${audit}
<h2>Approval requests</h2>${approvals}
<h2>Journal</h2>${journal}`,
  );
}
