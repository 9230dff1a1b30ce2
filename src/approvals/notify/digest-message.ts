import escapeHtml from "escape-html";
import { neutralise } from "../../shared/index.js";
import { formatTime, type MessageContent } from "./approval-message.js";
import { summariseArgs } from "./approval-story.js";
import type { DigestItem } from "./notifier.js";

function args(argsCanonical: string): string {
  try {
    return neutralise(summariseArgs(JSON.parse(argsCanonical), 200), "mail");
  } catch {
    return neutralise(summariseArgs(argsCanonical, 200), "mail");
  }
}

/**
 * The digest mail: the requests one run or schedule produced within the digest window after the
 * first (which went out on its own), each with its facts and its own link (null: per-request
 * channels, which decide elsewhere).
 */
export function composeDigest(items: readonly DigestItem[]): MessageContent {
  const first = items[0]!.record;
  const source = neutralise(first.scheduleId ? `schedule ${first.scheduleId}` : `run ${first.runId}`, "mail");
  const subject =
    `[echo-runner] ${items.length} more approval request${items.length === 1 ? "" : "s"} from ${source}`.slice(
      0,
      200,
    );
  const lead = `${source[0]!.toUpperCase()}${source.slice(1)} asked for ${items.length} more call${items.length === 1 ? "" : "s"} that need a person's approval. Each has its own page; decide each on its own.`;
  const text = [lead, ""];
  const html = ["<!doctype html><html><body>", `<p>${escapeHtml(lead)}</p>`, "<ol>"];
  items.forEach(({ record, link }, i) => {
    // Every value the runner did not write: hidden characters escaped, links defanged.
    const r = {
      ...record,
      tool: neutralise(record.tool, "mail"),
      agent: neutralise(record.agent, "mail"),
      runId: neutralise(record.runId, "mail"),
      reason: neutralise(record.reason, "mail"),
    };
    text.push(
      `${i + 1}. ${r.tool} (${r.risk}) for agent ${r.agent}, run ${r.runId}`,
      `   Arguments: ${args(r.argsCanonical)}`,
      `   Reason: ${r.reason}`,
      `   Deadline: ${formatTime(r.deadline)}`,
      link === null ? `   Request id: ${r.id}` : `   Review and decide: ${link}`,
      "",
    );
    html.push(
      `<li><p><b>${escapeHtml(r.tool)}</b> (${escapeHtml(r.risk)}) for agent ${escapeHtml(r.agent)}, run <code>${escapeHtml(r.runId)}</code><br>Arguments: <code>${escapeHtml(args(r.argsCanonical))}</code><br>Reason: ${escapeHtml(r.reason)}<br>Deadline: ${escapeHtml(formatTime(r.deadline))}<br>${
        link === null
          ? `Request id: <code>${escapeHtml(r.id)}</code>`
          : `<a href="${escapeHtml(link)}">Review and decide</a>`
      }</p></li>`,
    );
  });
  text.push(
    items.some((i) => i.link !== null)
      ? "These links are personal: do not forward them. Opening one changes nothing; you decide on the page."
      : "Decide with `echo-runner approvals approve|deny <id>` or the JSON API.",
  );
  html.push(
    "</ol>",
    "<p>These links are personal: do not forward them. Opening one changes nothing.</p>",
    "</body></html>",
  );
  return { subject, text: text.join("\n"), html: html.join("\n") };
}
