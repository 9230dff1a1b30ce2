import escapeHtml from "escape-html";
import { neutralise } from "../../shared/index.js";
import {
  type ApprovalStory,
  cutWithNote,
  describeStep,
  STORY_MAIL_STEPS,
  STORY_MAIL_TEXT_LIMIT,
} from "./approval-story.js";

/**
 * The run's story in a mail, below the link: task, the agent's own words (labelled as such) and the
 * most recent steps. Texts an agent may have written are cut and neutralised (hidden characters
 * escaped, links defanged as `https[:]//…`), so a mail client cannot turn a prompt injection's
 * "approve here" into a link, nor U+202E reorder what it says.
 */

const AGENT_LABEL =
  "Written by the agent, not by echo-runner or a person (it may try to persuade you; decide on the exact call):";

function untrusted(text: string): string {
  return neutralise(cutWithNote(text, STORY_MAIL_TEXT_LIMIT), "mail");
}

/** Lines of the plain-text story. */
export function storyTextLines(story: ApprovalStory): string[] {
  const lines: string[] = ["", "— The run so far —"];
  if (story.exec) lines.push(`Working directory: ${story.exec.cwd}`, `Runs on: ${story.exec.host}`);
  if (story.exec?.paths?.length) {
    lines.push("What the command names holds now:");
    for (const { path, state } of story.exec.paths) lines.push(`  ${neutralise(path, "mail")}: ${state}`);
  }
  if (story.parent) {
    lines.push(`Sub-agent of run ${story.parent.runId}, whose task is:`);
    lines.push(story.parent.task === null ? "(no longer on record)" : untrusted(story.parent.task));
  }
  lines.push("Task:", story.task === null ? "(no longer on record)" : untrusted(story.task), "");
  lines.push(AGENT_LABEL, story.agentWords === null ? "(nothing)" : untrusted(story.agentWords), "");
  lines.push("Earlier steps, most recent first:");
  if (story.steps.length === 0) lines.push("(none)");
  for (const step of story.steps.slice(0, STORY_MAIL_STEPS))
    lines.push(neutralise(describeStep(step), "mail"));
  if (story.steps.length > STORY_MAIL_STEPS) {
    lines.push(`… and ${story.steps.length - STORY_MAIL_STEPS} more on the approval page.`);
  }
  for (const note of story.notes) lines.push(`(${note})`);
  return lines;
}

/** The HTML story: every value escaped and defanged, no element a link. */
export function storyHtml(story: ApprovalStory): string {
  const quote = (text: string | null, fallback: string) =>
    text === null
      ? `<p>${escapeHtml(fallback)}</p>`
      : `<blockquote style="white-space:pre-wrap;border-left:3px solid #999;margin:.3em 0;padding:.3em .6em">${escapeHtml(untrusted(text))}</blockquote>`;
  const parts = ["<h3>The run so far</h3>"];
  if (story.exec) {
    parts.push(
      `<p>Working directory: <code>${escapeHtml(neutralise(story.exec.cwd, "mail"))}</code><br>Runs on: ${escapeHtml(story.exec.host)}</p>`,
    );
    if (story.exec.paths?.length) {
      const items = story.exec.paths.map(
        ({ path, state }) =>
          `<li><code>${escapeHtml(neutralise(path, "mail"))}</code>: ${escapeHtml(state)}</li>`,
      );
      parts.push(`<p>What the command names holds now:</p><ul>${items.join("")}</ul>`);
    }
  }
  if (story.parent) {
    parts.push(
      `<p>Sub-agent of run <code>${escapeHtml(story.parent.runId)}</code>, whose task is:</p>`,
      quote(story.parent.task, "(no longer on record)"),
    );
  }
  parts.push("<p><b>Task</b></p>", quote(story.task, "(no longer on record)"));
  parts.push(`<p><b>${escapeHtml(AGENT_LABEL)}</b></p>`, quote(story.agentWords, "(nothing)"));
  parts.push("<p><b>Earlier steps, most recent first</b></p>");
  const items = story.steps
    .slice(0, STORY_MAIL_STEPS)
    .map((step) => `<li>${escapeHtml(neutralise(describeStep(step), "mail"))}</li>`);
  parts.push(items.length === 0 ? "<p>(none)</p>" : `<ul>${items.join("")}</ul>`);
  if (story.steps.length > STORY_MAIL_STEPS) {
    parts.push(`<p>… and ${story.steps.length - STORY_MAIL_STEPS} more on the approval page.</p>`);
  }
  for (const note of story.notes) parts.push(`<p>(${escapeHtml(note)})</p>`);
  return parts.join("\n");
}
