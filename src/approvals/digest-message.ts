import escapeHtml from "escape-html";
import { formatTime, type MessageContent } from "./approval-message.js";
import { defangLinks, summariseArgs } from "./approval-story.js";
import type { DigestItem } from "./notifier.js";

function args(argsCanonical: string): string {
  try {
    return defangLinks(summariseArgs(JSON.parse(argsCanonical), 200));
  } catch {
    return defangLinks(summariseArgs(argsCanonical, 200));
  }
}

/**
 * The digest mail: the requests one run or schedule produced within the digest window after the
 * first (which went out on its own), each with its facts and its own link (null: per-request
 * channels, which decide elsewhere).
 */
export function composeDigest(items: readonly DigestItem[]): MessageContent {
  const first = items[0]!.record;
  const source = first.scheduleId ? `schedule ${first.scheduleId}` : `run ${first.runId}`;
  const subject =
    `[echo-runner] ${items.length} more approval request${items.length === 1 ? "" : "s"} from ${source}`
      .replace(/\p{Cc}+/gu, " ")
      .slice(0, 200);
  const lead = `${source[0]!.toUpperCase()}${source.slice(1)} asked for ${items.length} more call${items.length === 1 ? "" : "s"} that need a person's approval. Each has its own page; decide each on its own.`;
  const text = [lead, ""];
  const html = ["<!doctype html><html><body>", `<p>${escapeHtml(lead)}</p>`, "<ol>"];
  items.forEach(({ record: r, link }, i) => {
    text.push(
      `${i + 1}. ${r.tool} (${r.risk}) for agent ${r.agent}, run ${r.runId}`,
      `   Arguments: ${args(r.argsCanonical)}`,
      `   Reason: ${defangLinks(r.reason)}`,
      `   Deadline: ${formatTime(r.deadline)}`,
      link === null ? `   Request id: ${r.id}` : `   Review and decide: ${link}`,
      "",
    );
    html.push(
      `<li><p><b>${escapeHtml(r.tool)}</b> (${escapeHtml(r.risk)}) for agent ${escapeHtml(r.agent)}, run <code>${escapeHtml(r.runId)}</code><br>Arguments: <code>${escapeHtml(args(r.argsCanonical))}</code><br>Reason: ${escapeHtml(defangLinks(r.reason))}<br>Deadline: ${escapeHtml(formatTime(r.deadline))}<br>${
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
