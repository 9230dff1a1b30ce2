import { describe, expect, it } from "vitest";
import type { RunDetail, RunSummary } from "../runs/index.js";
import { runPage } from "./admin/index.js";

const summary: RunSummary = {
  runId: "run-1",
  jobId: "run-1",
  state: "completed",
  outcome: "completed",
  failureCode: null,
  outcomeText: "completed",
  detail: "done",
  agent: "tidier",
  traceId: "0f8fad5b-d9cb-469f-a165-70867728950e",
  origin: "api",
  scheduleId: null,
  parentRunId: null,
  rerunOf: null,
  created: 1_700_000_000_000,
  started: 1_700_000_000_000,
  finished: 1_700_000_001_000,
  attempts: 1,
  parkedApprovals: [],
  damagedApprovals: [],
  usage: null,
};

function detail(run: RunSummary | null): RunDetail {
  return {
    runId: "run-1",
    run,
    task: "tidy",
    model: "main",
    unattended: false,
    depth: 0,
    transcript: [],
    journal: [],
    decisions: [],
    approvals: [],
    damagedApprovals: [],
    operatorActions: [],
    reruns: [],
    notes: [],
  };
}

describe("the /admin run page", () => {
  it("shows the run's OpenTelemetry trace id, the one its spans and log lines carry", () => {
    const html = runPage("/admin", "olga", "csrf", detail(summary));
    expect(html).toContain("<tr><th>trace id</th><td>0f8fad5bd9cb469fa16570867728950e</td></tr>");
  });
});
