import { parseArgs } from "node:util";
import type { DecisionView, RunDetail } from "../../../runs/index.js";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { terminalJson, terminalText } from "../../terminal-text.js";
import { oneLine, openRuns, usageLine, when } from "./jobs-shared.js";

const USAGE = "echo-runner jobs show <run id> [--config FILE] [--json]";

function json(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
}

function decisionLine(d: DecisionView): string {
  const head = `  #${d.seq} ${when(d.at)} ${d.tool}`;
  if (d.kind === "decision") {
    const by = d.approvalSource ? ` (${d.approvalSource}${d.approver ? `: ${d.approver}` : ""})` : "";
    return `${head} ${d.verdict.toUpperCase()} at step ${d.step}${by}: ${oneLine(d.reason, 160)}`;
  }
  const replay = d.isReplay ? ", replayed from the journal" : "";
  const why = d.reason ? `: ${oneLine(d.reason, 120)}` : "";
  return `${head} executed → ${d.outcome} in ${d.durationMs} ms${replay}${why}`;
}

function render(detail: RunDetail): string {
  const run = detail.run;
  const lines = [
    run
      ? `Run ${detail.runId}: ${run.outcomeText} (job state ${run.state}, ${run.attempts} attempt(s) made)`
      : `Run ${detail.runId}: job no longer in the queue`,
  ];
  if (run) {
    lines.push(
      `Agent: ${run.agent ?? "?"}   trace ${run.traceId ?? "?"}   origin ${run.origin ?? "?"}${run.scheduleId ? ` (schedule ${run.scheduleId})` : ""}${run.parentRunId ? `   parent ${run.parentRunId}` : ""}`,
      `Created ${when(run.created)}   started ${when(run.started)}   finished ${when(run.finished)}`,
    );
    if (run.rerunOf) lines.push(`Rerun of: ${run.rerunOf}`);
    if (run.usage) lines.push(`Usage: ${usageLine(run.usage)}`);
    if (run.landing)
      lines.push(
        `Workspace: ${run.landing.state === "landed" ? `${run.landing.changes} change(s) landed` : `${run.landing.changes} change(s) kept, not landed (echo-runner runs diff ${detail.runId})`}: ${oneLine(run.landing.note, 200)}`,
      );
    if (run.detail) {
      const label =
        run.outcome === "failed" ? "Failure" : run.outcome === "cancelled" ? "Cancelled" : "Answer";
      lines.push(`${label}: ${oneLine(run.detail, 400)}`);
    }
  }
  if (detail.reruns.length > 0) lines.push(`Reruns: ${detail.reruns.join(", ")}`);
  for (const a of detail.operatorActions) {
    lines.push(
      `Operator: ${a.action} by ${a.by} via ${a.via} at ${when(a.at)}${a.reason ? `: ${oneLine(a.reason, 200)}` : ""}`,
    );
  }
  if (detail.task !== null) {
    lines.push(
      `Task (${detail.model}, ${detail.unattended ? "unattended" : "attended"}): ${oneLine(detail.task, 200)}`,
    );
  }
  for (const note of detail.notes) lines.push(`Note: ${note}`);

  lines.push("", `Transcript (${detail.transcript.length} model step(s)):`);
  if (detail.transcript.length === 0) lines.push("  (none)");
  const ended = run?.state === "completed" || run?.state === "failed";
  for (const step of detail.transcript) {
    // A claimed model call of a run that has ended never got its answer: it is not in flight.
    const unanswered = ended
      ? `(model call without an answer: the run ended ${run?.outcomeText})`
      : "(model call in flight)";
    const text = step.status === "in_flight" ? unanswered : oneLine(step.content, 200) || "(no text)";
    lines.push(`  step ${step.step}: ${text}`);
    for (const call of step.toolCalls) {
      lines.push(`    → #${call.callIndex} ${call.name} ${oneLine(json(call.arguments), 160)}`);
    }
  }

  lines.push("", `Journal (${detail.journal.length} tool call(s)):`);
  if (detail.journal.length === 0) lines.push("  (none)");
  for (const entry of detail.journal) {
    const index = entry.callIndex === null ? "" : `#${entry.callIndex} `;
    const result = entry.status === "completed" ? ` → ${oneLine(json(entry.result), 160)}` : "";
    lines.push(
      `  ${index}${entry.tool ?? "(unknown tool)"} ${entry.status.toUpperCase()} attempt ${entry.attempt} key ${entry.key.slice(0, 12)}…${result}`,
    );
  }

  lines.push(
    "",
    `Decisions (${detail.decisions.length} audit entr${detail.decisions.length === 1 ? "y" : "ies"}):`,
  );
  if (detail.decisions.length === 0) lines.push("  (none)");
  for (const d of detail.decisions) lines.push(decisionLine(d));

  lines.push("", `Approvals (${detail.approvals.length + detail.damagedApprovals.length}):`);
  if (detail.approvals.length + detail.damagedApprovals.length === 0) lines.push("  (none)");
  for (const a of detail.approvals) {
    const decided = a.decisions
      .map((d) => `${d.decision === "deny" ? "denied" : "approved"} by ${d.by}`)
      .join(", ");
    lines.push(
      `  ${a.id} ${a.tool} (${a.risk}) ${a.status === "expired" ? "EXPIRED (denied: nobody decided before the deadline)" : a.status.toUpperCase()} requested ${when(a.requestedAt)} deadline ${when(a.deadline)}${decided ? ` — ${decided}` : ""}`,
    );
  }
  // Named, never dropped: a request that cannot be read is neither approved nor asked again.
  for (const d of detail.damagedApprovals) {
    lines.push(`  ${d.id} DAMAGED (${d.code}): cannot be read, see the note above`);
  }
  return `${lines.join("\n")}\n`;
}

/** `echo-runner jobs show <id>`: one run's transcript, journal, decisions and approvals. */
export const jobsShowCommand: CliCommand = {
  words: ["jobs", "show"],
  summary: "show one agent run: model transcript, tool-call journal, gate decisions, approvals",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    if (positionals.length !== 1 || !positionals[0]) {
      throw new RunnerError("CLI_USAGE", `expected exactly one run id; usage: ${USAGE}`);
    }
    const runs = await openRuns(io, values.config);
    try {
      const detail = await runs.inspector.showRun(positionals[0]);
      io.stdout(values.json ? `${terminalJson(detail, 2)}\n` : terminalText(render(detail)));
      return EXIT.ok;
    } finally {
      await runs.close();
    }
  },
};
