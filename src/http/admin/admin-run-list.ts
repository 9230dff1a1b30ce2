import {
  RUN_OUTCOMES,
  RUN_STATE_FILTERS,
  type RunListFilter,
  type RunPage,
  type RunSummary,
} from "../../runs/index.js";
import { cardTable, esc, header, page, runLink, time } from "./admin-html.js";

/**
 * Runs as a table: the outcome in the words the CLI and the API use (`failed: <code>`, …), with
 * any approval request of the run that cannot be read named under it, and after it BullMQ's word
 * for the job, named as such (a parked run's job is `delayed`).
 */
export function runsTable(basePath: string, runs: readonly RunSummary[]): string {
  return cardTable(
    "runs",
    ["run", "outcome", "queue state", "agent", "schedule", "created", "finished", "detail"],
    runs.map((r) => ({
      attrs: ` data-run="${esc(r.runId)}"`,
      cells: [
        runLink(basePath, r.runId),
        `<span class="outcome">${esc(r.outcomeText)}</span>${r.damagedApprovals
          .map(
            (d) =>
              `<br><span class="damaged-approval">approval <code>${esc(d.id)}</code> damaged (${esc(d.code)})</span>`,
          )
          .join("")}`,
        esc(r.state),
        esc(r.agent),
        esc(r.scheduleId),
        esc(time(r.created)),
        esc(time(r.finished)),
        esc(r.detail),
      ],
    })),
  );
}

/** The filter fields the list page's form sends back (GET), with what the operator chose. */
function filterForm(basePath: string, filter: RunListFilter): string {
  const select = (name: string, values: readonly string[], chosen: string | undefined) =>
    `<span class="field"><label for="f-${name}">${name}</label><select id="f-${name}" name="${name}"><option value="">any</option>${values
      .map((v) => `<option${v === chosen ? " selected" : ""}>${esc(v)}</option>`)
      .join("")}</select></span>`;
  const text = (name: string, value: string | undefined, hint: string) =>
    `<span class="field"><label for="f-${name}">${name}</label><input type="text" id="f-${name}" name="${name}" value="${esc(value ?? "")}" placeholder="${esc(hint)}"></span>`;
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  return `<form method="get" action="${esc(`${basePath}/admin/runs`)}" id="run-filters" class="filters">
${select("state", RUN_STATE_FILTERS, filter.state)}
${select("outcome", RUN_OUTCOMES, filter.outcome)}
${text("schedule", filter.schedule, "schedule id")}
${text("agent", filter.agent, "agent name")}
${text("owner", filter.owner, "owner id")}
${text("since", iso(filter.since), "2026-12-03T02:00:00Z")}
${text("until", iso(filter.until), "2026-12-03T08:00:00Z")}
<p><button type="submit" id="apply-filters">Filter</button> <a href="${esc(`${basePath}/admin/runs`)}">Clear</a></p>
</form>`;
}

/** The next page's address: the same filters, the page's cursor. */
function nextLink(basePath: string, filter: RunListFilter, cursor: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined || key === "cursor") continue;
    params.set(
      key,
      key === "since" || key === "until" ? new Date(value as number).toISOString() : String(value),
    );
  }
  params.set("cursor", cursor);
  return `${basePath}/admin/runs?${params.toString()}`;
}

/** `/admin/runs`: every run, newest first, filtered, a page at a time (cursor link to the next). */
export function runListPage(
  basePath: string,
  operator: string,
  csrf: string,
  filter: RunListFilter,
  result: RunPage | { error: string },
): string {
  const body =
    "error" in result
      ? `<p class="error" id="filter-error">${esc(result.error)}</p>`
      : result.runs.length === 0
        ? `<p class="muted" id="no-runs">No runs match.</p>`
        : runsTable(basePath, result.runs);
  const next =
    "error" in result || result.nextCursor === null
      ? ""
      : `<p><a id="next-page" href="${esc(nextLink(basePath, filter, result.nextCursor))}">Next page</a></p>`;
  return page(
    "echo-runner admin: runs",
    basePath,
    `${header(basePath, operator, csrf)}
<h2>Runs</h2>
${filterForm(basePath, filter)}
${body}
${next}`,
  );
}
