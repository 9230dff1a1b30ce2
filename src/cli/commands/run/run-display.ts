import { terminalJson, terminalText } from "../../terminal-text.js";
import type { RunEvent } from "./run-follow.js";

/** Writes run events for a person (plain lines, plus a live status line on a terminal) or as JSON lines. */
export interface RunDisplay {
  event(event: RunEvent): void;
  /** Clears the status line (terminal) before the process exits. */
  close(): void;
}

const SPINNER = ["|", "/", "-", "\\"] as const;

function who(event: { child: boolean; runId: string }): string {
  return event.child ? `  [sub-agent ${event.runId.slice(0, 14)}]` : "";
}

/**
 * One event as the line(s) a person reads; the same text on a terminal and in a log. Text a model
 * or an agent wrote (the task, reasons, the final answer, errors) cannot take over the terminal.
 */
export function describeEvent(event: RunEvent, approveHint: (id: string) => string): string {
  return terminalText(eventText(event, approveHint));
}

function eventText(event: RunEvent, approveHint: (id: string) => string): string {
  switch (event.type) {
    case "enqueued":
      return `enqueued run ${event.runId} (agent ${event.agent}, model ${event.model})\n  task: ${event.task.split("\n")[0]}`;
    case "decision": {
      const by = event.approvalSource === "human" && event.approver ? `, approved by ${event.approver}` : "";
      return `${who(event)}  ${event.tool.padEnd(16)} ${event.verdict.toUpperCase().padEnd(5)} step ${event.step}: ${event.reason}${by}`;
    }
    case "execution":
      return `${who(event)}    -> ${event.tool} ${event.outcome} (${event.durationMs} ms${event.isReplay ? ", from the journal" : ""})`;
    case "parked":
      return [
        `PARKED: ${event.tool} waits for a person (approval ${event.approvalId}, deadline ${new Date(event.deadline).toISOString()})`,
        `  reason: ${event.reason}`,
        `  approvers ${event.approvers.join(", ") || "(none configured)"} got their personal approval link by mail`,
        "  (with no smtp.host the runner prints the mail and link on its own terminal)",
        `  or decide from here: ${approveHint(event.approvalId)}`,
      ].join("\n");
    case "waiting":
      return `WAITING for ${event.why} (the run holds no worker meanwhile)`;
    case "decided":
      return `approval ${event.approvalId}: ${event.status}${event.by.length > 0 ? ` by ${event.by.join(", ")}` : ""}`;
    case "resumed":
      return "RESUMED";
    case "finished":
      return `FINISHED: ${event.status} after ${event.steps} model turns and ${event.toolCalls} tool calls\n${event.finalAnswer}`;
    case "failed":
      return `FAILED: ${event.error}`;
    case "timeout":
      return `still ${event.state} when --timeout ran out; it goes on without this command (see: echo-runner jobs show <run id>)`;
  }
}

/** `--json`: one JSON object per event and line. */
export function jsonDisplay(write: (text: string) => void): RunDisplay {
  return { event: (event) => write(`${terminalJson(event)}\n`), close: () => undefined };
}

/** Plain lines (stdout is not a terminal): one line or block per event, nothing rewritten. */
export function plainDisplay(write: (text: string) => void, approveHint: (id: string) => string): RunDisplay {
  return { event: (event) => write(`${describeEvent(event, approveHint)}\n`), close: () => undefined };
}

/**
 * A terminal: the same lines, plus a status line at the bottom (spinner, state, elapsed time,
 * tool calls so far) rewritten in place and cleared before each event line.
 */
export function terminalDisplay(
  write: (text: string) => void,
  approveHint: (id: string) => string,
  now: () => number = Date.now,
): RunDisplay {
  const started = now();
  let state = "queued";
  let calls = 0;
  let frame = 0;
  let shown = false;
  const clear = () => {
    if (shown) write("\r\x1b[2K");
    shown = false;
  };
  const draw = () => {
    const seconds = Math.round((now() - started) / 1000);
    write(`\r\x1b[2K${SPINNER[frame++ % SPINNER.length]} ${state} · ${calls} tool calls · ${seconds}s`);
    shown = true;
  };
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    event(event) {
      clear();
      if (event.type === "execution") calls++;
      if (event.type === "decision" || event.type === "execution" || event.type === "resumed")
        state = "running";
      if (event.type === "parked") state = "parked, waiting for approval";
      if (event.type === "waiting") state = "parked, waiting";
      write(`${describeEvent(event, approveHint)}\n`);
      const done = event.type === "finished" || event.type === "failed" || event.type === "timeout";
      if (!done) draw();
    },
    close() {
      clearInterval(timer);
      clear();
    },
  };
}
