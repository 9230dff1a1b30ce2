import escapeHtml from "escape-html";
import { formatTime } from "../../approvals/index.js";
import { makeVisible } from "../../shared/index.js";

/** The pieces every /admin page is built from: escaping, times, the page frame, the header, run links. */

// Every value is shown with its invisible, direction-changing and control characters written out.
export const esc = (value: unknown): string =>
  escapeHtml(makeVisible(value === null || value === undefined ? "" : String(value)));
export const time = (ms: number | null | undefined): string => (ms ? formatTime(ms) : "");

export function page(title: string, basePath: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>${esc(title)}</title><link rel="stylesheet" href="${esc(`${basePath}/admin/assets/admin.css`)}">
</head><body><main>
${body}
</main></body></html>`;
}

export function header(basePath: string, operator: string, csrf: string): string {
  return `<header><h1><a href="${esc(`${basePath}/admin`)}">echo-runner admin</a></h1>
<div>signed in as <strong id="operator-name">${esc(operator)}</strong>
<form class="inline" method="post" action="${esc(`${basePath}/admin/logout`)}">
<input type="hidden" name="csrf" value="${esc(csrf)}"><button type="submit" id="sign-out">Sign out</button></form></div></header>`;
}

export function runLink(basePath: string, runId: string): string {
  return `<a href="${esc(`${basePath}/admin/runs/${encodeURIComponent(runId)}`)}"><code>${esc(runId)}</code></a>`;
}

/** One row of a {@link cardTable}: its cells' HTML (already escaped), and the row's own attributes. */
export interface CardRow {
  /** Attributes of the row's `<tr>`, already escaped (e.g. ` id="approval-…"`). */
  attrs: string;
  cells: readonly string[];
}

/**
 * A table whose rows become cards on a phone (admin.css): each cell on its own line under its
 * column's name (`data-label`), so a row's buttons are on screen, not at the far end of a table
 * scrolled sideways. `columns` are plain text; an empty one labels a cell of buttons.
 */
export function cardTable(id: string, columns: readonly string[], rows: readonly CardRow[]): string {
  const head = `<tr>${columns.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>`;
  const body = rows.map(
    (r) =>
      `<tr${r.attrs}>${r.cells.map((cell, i) => `<td${columns[i] ? ` data-label="${esc(columns[i])}"` : ""}>${cell}</td>`).join("")}</tr>`,
  );
  return `<table id="${esc(id)}" class="cards">${head}\n${body.join("\n")}</table>`;
}
