import escapeHtml from "escape-html";
import { formatTime } from "../../approvals/index.js";
import type { RunDetail } from "../../runs/index.js";
import { makeVisible } from "../../shared/index.js";
import type { RunAction } from "../runs/index.js";

const esc = (value: unknown): string =>
  escapeHtml(makeVisible(value === null || value === undefined ? "" : String(value)));

const LABELS: Readonly<Record<RunAction, string>> = {
  cancel: "Cancel run",
  retry: "Retry from where it stopped",
  rerun: "Rerun as a new run",
};

/** Which actions the run's state allows (the server refuses the others whatever is posted). */
export function allowedActions(detail: RunDetail): RunAction[] {
  const run = detail.run;
  if (!run) return [];
  const actions: RunAction[] = [];
  if (run.state !== "completed" && run.state !== "failed") actions.push("cancel");
  if (run.state === "failed") actions.push("retry");
  if (detail.task !== null) actions.push("rerun");
  return actions;
}

/**
 * The run page's actions (cancel / retry / rerun, each a form with the session's CSRF secret and an
 * optional reason), the links between a run and its reruns, and the operators' actions on record.
 */
export function runActionsSection(basePath: string, csrf: string, detail: RunDetail): string {
  const runPath = (id: string) => `${basePath}/admin/runs/${encodeURIComponent(id)}`;
  const forms = allowedActions(detail)
    .map(
      (
        action,
      ) => `<form class="run-action" method="post" action="${esc(`${runPath(detail.runId)}/${action}`)}">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<label for="reason-${action}">Reason (kept in the journal and audit trail)</label>
<input type="text" id="reason-${action}" name="reason" maxlength="2000">
<button type="submit" id="run-${action}" class="${action === "cancel" ? "deny" : "approve"}">${esc(LABELS[action])}</button>
</form>`,
    )
    .join("\n");
  const links: string[] = [];
  const rerunOf = detail.run?.rerunOf;
  if (rerunOf)
    links.push(`Rerun of <a id="rerun-of" href="${esc(runPath(rerunOf))}"><code>${esc(rerunOf)}</code></a>`);
  for (const id of detail.reruns)
    links.push(`Rerun: <a class="rerun" href="${esc(runPath(id))}"><code>${esc(id)}</code></a>`);
  const actions =
    detail.operatorActions.length === 0
      ? ""
      : `<table id="operator-actions"><tr><th>at</th><th>action</th><th>by</th><th>via</th><th>reason</th></tr>
${detail.operatorActions
  .map(
    (a) =>
      `<tr><td>${esc(formatTime(a.at))}</td><td>${esc(a.action)}</td><td>${esc(a.by)}</td><td>${esc(a.via)}</td><td>${esc(a.reason)}</td></tr>`,
  )
  .join("\n")}</table>`;
  return `<h2>Actions</h2>
${forms || `<p class="muted">No action applies to this run now.</p>`}
${links.map((l) => `<p>${l}</p>`).join("")}
${actions}`;
}
