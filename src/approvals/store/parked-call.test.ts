import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../shared/index.js";
import { resolveParkedCall } from "./parked-call.js";
import type { ApprovalRecord } from "./record.js";

const ARGS = '{"command":"ls"}';
const call = { id: "a".repeat(32), runId: "run", tool: "exec", argsHash: sha256Hex(ARGS) };

function record(status: ApprovalRecord["status"], patch: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    v: 1,
    id: call.id,
    idempotencyKey: "k",
    jobId: "job",
    runId: "run",
    traceId: "t",
    tool: "exec",
    argsCanonical: ARGS,
    argsHash: sha256Hex(ARGS),
    risk: "exec",
    flags: [],
    reason: "",
    agent: "a",
    scheduleId: null,
    parentRunId: null,
    owner: null,
    channel: "cron",
    requestedAt: 0,
    deadline: 1000,
    remindAt: null,
    requiredApprovals: 1,
    forbidSelfApproval: false,
    alwaysAllowed: true,
    approvers: [],
    status,
    decisions:
      status === "approved"
        ? [{ by: "alice", at: 10, decision: "approve", kind: "once", comment: "", via: "link" }]
        : [],
    finishedAt: status === "pending" ? null : 10,
    executableUntil: status === "approved" ? 1000 : null,
    notifiedAt: null,
    deliveredTo: [],
    remindedAt: null,
    fetches: [],
    ...patch,
  };
}

describe("resolveParkedCall", () => {
  it.each([
    ["approved", record("approved"), 500, { action: "execute", approvers: ["alice"], always: false }],
    ["pending before the deadline", record("pending"), 500, { action: "wait", until: 1000 }],
    ["pending at the deadline", record("pending"), 1000, { action: "deny", reason: "expired" }],
    ["denied", record("denied"), 500, { action: "deny", reason: "denied" }],
    ["cancelled", record("cancelled"), 500, { action: "deny", reason: "cancelled" }],
    ["missing", null, 500, { action: "deny", reason: "not_found" }],
  ] as const)("answers %s with %o", (_name, rec, now, expected) => {
    expect(resolveParkedCall(rec, call, now)).toMatchObject(expected);
  });

  it("denies an approved request whose arguments changed", () => {
    const changed = { ...call, argsHash: sha256Hex('{"command":"ls; rm -rf /"}') };
    expect(resolveParkedCall(record("approved"), changed, 500)).toMatchObject({
      action: "deny",
      reason: "args_mismatch",
    });
  });
});
