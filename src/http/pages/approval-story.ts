import escapeHtml from "escape-html";
import {
  type ApprovalStory,
  type NamedPath,
  STORY_PAGE_STEPS,
  type StoryStep,
} from "../../approvals/index.js";

/**
 * The run's story on the approval page: where an exec call runs (next to the call), and below the
 * decision the task, the model's own words and the earlier steps. Everything is escaped text: no
 * value ever becomes a link or markup, whatever the agent wrote.
 */

/** Where an exec-class call runs, shown right under the call. Empty for other tools. */
export function execPlaceSection(story: ApprovalStory | null): string {
  if (story?.exec == null) return "";
  return `<table class="facts" id="exec-place"><tr><th>Working directory</th><td><code>${escapeHtml(story.exec.cwd)}</code></td></tr>
<tr><th>Runs on</th><td>${escapeHtml(story.exec.host)}</td></tr>${namedPathRows(story.exec.paths ?? [])}</table>`;
}

/** One row per path the command names: what exists there now (read beneath the workspace). */
function namedPathRows(paths: readonly NamedPath[]): string {
  return paths
    .map(
      ({ path, state }) =>
        `<tr class="named-path"><th>Now at <code>${escapeHtml(path)}</code></th><td>${escapeHtml(state)}</td></tr>`,
    )
    .join("\n");
}

function stepItem(step: StoryStep): string {
  const verdict =
    step.verdict === null
      ? `<span class="muted">no gate decision on record</span>`
      : `<span class="verdict-${escapeHtml(step.verdict)}">${escapeHtml(step.verdict)}</span> <span class="muted">(gate step ${escapeHtml(String(step.gateStep ?? "?"))})</span>`;
  const ran =
    step.outcome === null
      ? ""
      : step.outcome === "success"
        ? " · succeeded"
        : ` · failed: ${escapeHtml(step.outcome)}`;
  return `<li><b>#${step.index + 1} ${escapeHtml(step.tool)}</b> <code class="summary">${escapeHtml(step.summary)}</code><br>${verdict}${ran}</li>`;
}

/** An ordered list of steps, most recent first. */
export function stepsList(steps: readonly StoryStep[]): string {
  if (steps.length === 0) return `<p class="muted" id="steps-none">No earlier tool calls in this run.</p>`;
  return `<ul class="steps" id="steps">${steps.map(stepItem).join("")}</ul>`;
}

/**
 * The story below the decision. `stepsHref` is the full list's address (same token); `story` null
 * means it could not be read, which the page says instead of failing.
 */
export function storySection(story: ApprovalStory | null, stepsHref: string): string {
  if (story === null) {
    return `<section id="story"><h2>The run so far</h2><p class="muted">The run's story could not be read right now; the call above is what you decide on.</p></section>`;
  }
  const parts: string[] = [`<section id="story"><h2>The run so far</h2>`];
  if (story.parent !== null) {
    parts.push(
      `<p id="parent">This is a sub-agent's call. Parent run: <code>${escapeHtml(story.parent.runId)}</code>.</p>`,
      story.parent.task === null
        ? `<p class="muted">The parent run's task is no longer on record.</p>`
        : `<h3>The parent run's task</h3><blockquote class="quoted" id="parent-task">${escapeHtml(story.parent.task)}</blockquote>`,
    );
  }
  parts.push(
    `<h3>Task</h3>`,
    story.task === null
      ? `<p class="muted" id="task">The run's task is no longer on record.</p>`
      : `<blockquote class="quoted" id="task">${escapeHtml(story.task)}</blockquote>`,
    `<h3>What the agent wrote when it made this call</h3>`,
    `<p class="warning">Written by the agent, not by echo-runner or a person. It may be wrong or try to persuade you; decide on the exact call above. Nothing here is a link.</p>`,
    story.agentWords === null
      ? `<p class="muted" id="agent-words">The agent wrote nothing in that turn.</p>`
      : `<blockquote class="agent-text" id="agent-words">${escapeHtml(story.agentWords)}</blockquote>`,
    `<h3>Earlier steps, most recent first</h3>`,
    stepsList(story.steps.slice(0, STORY_PAGE_STEPS)),
  );
  if (story.steps.length > STORY_PAGE_STEPS) {
    parts.push(
      `<p><a href="${escapeHtml(stepsHref)}" id="all-steps">All ${story.steps.length} earlier steps</a> (${story.steps.length - STORY_PAGE_STEPS} more).</p>`,
    );
  }
  for (const note of story.notes) parts.push(`<p class="muted note">${escapeHtml(note)}</p>`);
  parts.push("</section>");
  return parts.join("\n");
}
