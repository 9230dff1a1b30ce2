import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../shared/index.js";
import { judgeExecutable } from "./executable-check.js";
import type { ApprovalRecord } from "./record.js";

const ARGS = '{"command":"make deploy"}';
const NOW = 1_000_000;

function record(patch: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    v: 1,
    id: "a".repeat(32),
    idempotencyKey: "k",
    jobId: "job",
    runId: "run",
    traceId: "trace",
    tool: "exec",
    argsCanonical: ARGS,
    argsHash: sha256Hex(ARGS),
    risk: "exec",
    flags: [],
    reason: "r",
    agent: "agent",
    scheduleId: null,
    parentRunId: null,
    owner: null,
    channel: "cron",
    requestedAt: NOW - 10,
    deadline: NOW + 100,
    remindAt: null,
    requiredApprovals: 1,
    forbidSelfApproval: false,
    alwaysAllowed: true,
    approvers: [],
    status: "approved",
    decisions: [{ by: "alice", at: NOW - 5, decision: "approve", kind: "always", comment: "", via: "link" }],
    finishedAt: NOW - 5,
    executableUntil: NOW + 100,
    notifiedAt: null,
    deliveredTo: [],
    remindedAt: null,
    fetches: [],
    ...patch,
  };
}

const call = { id: "a".repeat(32), runId: "run", tool: "exec", argsHash: sha256Hex(ARGS) };

describe("judgeExecutable", () => {
  it("lets the exact approved call run and names its approvers", () => {
    expect(judgeExecutable(record(), call, NOW)).toMatchObject({
      ok: true,
      approvers: ["alice"],
      always: true,
    });
  });

  it("honours an approval made before the deadline however late the run wakes (a durable decision)", () => {
    // Decided at NOW - 5, deadline NOW + 100, window until NOW + 100: the run woke a day later.
    expect(judgeExecutable(record(), call, NOW + 86_400_000)).toMatchObject({
      ok: true,
      approvers: ["alice"],
    });
  });

  it.each([
    ["no record", null, call, NOW, "not_found"],
    ["another run", record(), { ...call, runId: "other" }, NOW, "run_mismatch"],
    ["another tool", record(), { ...call, tool: "write_file" }, NOW, "tool_mismatch"],
    [
      "changed arguments",
      record(),
      { ...call, argsHash: sha256Hex('{"command":"make deploy; rm -rf /"}') },
      NOW,
      "args_mismatch",
    ],
    ["a malformed hash", record(), { ...call, argsHash: "zz" }, NOW, "args_mismatch"],
    [
      "a pending request",
      record({ status: "pending", decisions: [], executableUntil: null }),
      call,
      NOW,
      "pending",
    ],
    [
      "a pending request past its deadline",
      record({ status: "pending", executableUntil: null }),
      call,
      NOW + 100,
      "expired",
    ],
    ["a denied request", record({ status: "denied" }), call, NOW, "denied"],
    ["an expired request", record({ status: "expired" }), call, NOW, "expired"],
    ["a cancelled request", record({ status: "cancelled" }), call, NOW, "cancelled"],
    [
      "an approval not shown settled before the deadline, past its execution window",
      record({ finishedAt: null }),
      call,
      NOW + 101,
      "approval_stale",
    ],
    [
      "an approval settled at the deadline, past its execution window",
      record({ finishedAt: NOW + 100 }),
      call,
      NOW + 101,
      "approval_stale",
    ],
    [
      "an approval without an execution window or settling time",
      record({ executableUntil: null, finishedAt: null }),
      call,
      NOW,
      "approval_stale",
    ],
  ] as const)("refuses %s", (_name, rec, input, now, reason) => {
    expect(judgeExecutable(rec, input, now)).toMatchObject({ ok: false, reason });
  });
});
