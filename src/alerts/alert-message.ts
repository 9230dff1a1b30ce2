import escapeHtml from "escape-html";
import type { MessageContent } from "../approvals/index.js";
import { type AlertKind, assertNever, type NeutralSink, neutralise } from "../shared/index.js";
import type { Alert } from "./alert.js";

/** At most this many alerts are listed in one message; the rest are counted. */
export const MAX_LISTED_ALERTS = 50;

/** `<public url>/admin/runs/<id>` for a run, `<public url>/admin` for a schedule's missed firing. */
export function adminLink(publicUrl: string, alert: Pick<Alert, "runId">): string {
  const base = `${publicUrl.replace(/\/+$/, "")}/admin`;
  return alert.runId === null ? base : `${base}/runs/${encodeURIComponent(alert.runId)}`;
}

function what(kind: AlertKind): string {
  switch (kind) {
    case "run_failed":
      return "run failed";
    case "call_expired":
      return "call denied: its approval expired";
    case "schedule_failing":
      return "schedule failing";
    case "schedule_missed":
      return "schedule missed its firing";
    default:
      return assertNever(kind, "alert kind");
  }
}

/** One alert on one line, for `sink` (names and details neutralised: agents and servers wrote them). */
export function alertLine(alert: Alert, sink: NeutralSink): string {
  const where = alert.scheduleId !== null ? `schedule ${alert.scheduleId}` : `agent ${alert.agent}`;
  const run = alert.runId !== null ? `, run ${alert.runId}` : "";
  const code = alert.code !== null ? `: ${alert.code}` : "";
  const detail = alert.detail.replace(/\s+/g, " ").trim();
  return neutralise(`${what(alert.kind)} (${where}${run})${code}${detail ? ` — ${detail}` : ""}`, sink);
}

/** The message's title: one alert's own, or how many a digest holds and from where. */
export function alertTitle(alerts: readonly Alert[], sink: NeutralSink): string {
  const first = alerts[0]!;
  const where = first.scheduleId !== null ? `schedule ${first.scheduleId}` : `agent ${first.agent}`;
  const text =
    alerts.length === 1
      ? `[echo-runner] ${what(first.kind)}: ${where}${first.code !== null ? ` (${first.code})` : ""}`
      : `[echo-runner] ${alerts.length} alerts from ${where}`;
  return neutralise(text, sink).slice(0, 200);
}

function time(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** The mail of one alert or a digest of several: each with its time and its /admin link. */
export function composeAlertMail(alerts: readonly Alert[], publicUrl: string): MessageContent {
  const listed = alerts.slice(0, MAX_LISTED_ALERTS);
  const more = alerts.length - listed.length;
  const lead =
    alerts.length === 1
      ? "echo-runner reports:"
      : `echo-runner collected ${alerts.length} alerts from one source into this digest (alerts.digest_window_seconds):`;
  const text = [
    lead,
    "",
    ...listed.flatMap((a) => [`${time(a.at)}  ${alertLine(a, "mail")}`, `  ${adminLink(publicUrl, a)}`]),
    ...(more > 0 ? ["", `… and ${more} more: see /admin.`] : []),
    "",
    "Sent because of alerts: in the runner's config.",
  ].join("\n");
  const html = [
    "<!doctype html><html><body>",
    `<p>${escapeHtml(lead)}</p><ul>`,
    ...listed.map(
      (a) =>
        `<li>${escapeHtml(time(a.at))} ${escapeHtml(alertLine(a, "mail"))} — <a href="${escapeHtml(adminLink(publicUrl, a))}">open in /admin</a></li>`,
    ),
    "</ul>",
    ...(more > 0 ? [`<p>… and ${more} more: see /admin.</p>`] : []),
    "<p>Sent because of <code>alerts:</code> in the runner's config.</p>",
    "</body></html>",
  ].join("\n");
  return { subject: alertTitle(alerts, "mail"), text, html };
}
