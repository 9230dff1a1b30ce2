import { describe, expect, it } from "vitest";
import { plainDisplay, terminalDisplay } from "./run-display.js";

const hint = (id: string) => `echo-runner approvals approve ${id}`;

describe("run displays", () => {
  it("on a terminal, clears the status line before each event line and redraws it after", () => {
    const written: string[] = [];
    const display = terminalDisplay(
      (t) => void written.push(t),
      hint,
      () => 5000,
    );
    display.event({ type: "enqueued", runId: "cli-1", agent: "a", model: "m", task: "do it" });
    display.event({
      type: "execution",
      runId: "cli-1",
      child: false,
      tool: "read_file",
      outcome: "success",
      durationMs: 3,
      isReplay: false,
    });
    display.event({ type: "finished", status: "completed", finalAnswer: "ok", steps: 2, toolCalls: 1 });
    display.close();
    const text = written.join("");
    expect(text).toContain("enqueued run cli-1 (agent a, model m)\n");
    const clear = "\r\u001b[2K";
    expect(text).toContain(`${clear}| queued · 0 tool calls · 0s${clear}    -> read_file success (3 ms)\n`);
    expect(text).toContain("running · 1 tool calls");
    // After the final event the status line is not drawn again.
    expect(text.endsWith("FINISHED: completed after 2 model turns and 1 tool calls\nok\n")).toBe(true);
  });

  it("without a terminal, writes plain lines only (no control characters)", () => {
    const written: string[] = [];
    const display = plainDisplay((t) => void written.push(t), hint);
    display.event({
      type: "parked",
      runId: "cli-1",
      approvalId: "ab12",
      tool: "exec",
      reason: "tar is not a safe bin",
      approvers: ["ann"],
      deadline: 0,
    });
    display.event({
      type: "decision",
      runId: "child-x",
      child: true,
      tool: "read_file",
      verdict: "allow",
      step: 4,
      reason: "read-only",
    });
    const text = written.join("");
    expect(text).not.toContain("\x1b");
    expect(text).toContain(
      "PARKED: exec waits for a person (approval ab12, deadline 1970-01-01T00:00:00.000Z)",
    );
    expect(text).toContain("or decide from here: echo-runner approvals approve ab12");
    expect(text).toContain("[sub-agent child-x]  read_file");
  });
});
