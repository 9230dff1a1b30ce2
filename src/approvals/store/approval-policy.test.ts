import { describe, expect, it } from "vitest";
import { isRunnerError } from "../../shared/index.js";
import { type ApprovalPolicy, resolveRequestPolicy, validateApprovalPolicy } from "./approval-policy.js";

const base: ApprovalPolicy = { waitTimeoutMs: 1000, approvers: [{ id: "alice", email: null }] };

describe("resolveRequestPolicy", () => {
  it.each([
    ["the default", {}, "exec", "cli", 1000],
    ["the risk override", { waitTimeoutMsByRisk: { exec: 2000 } }, "exec", "cli", 2000],
    [
      "the channel override over the risk one",
      { waitTimeoutMsByRisk: { exec: 2000 }, waitTimeoutMsByChannel: { cron: 9000 } },
      "exec",
      "cron",
      9000,
    ],
    ["the default when neither matches", { waitTimeoutMsByRisk: { dangerous: 2000 } }, "exec", "cli", 1000],
  ] as const)("waits for %s", (_name, patch, risk, channel, waitMs) => {
    expect(resolveRequestPolicy({ ...base, ...patch }, { tool: "exec", risk, channel }).waitMs).toBe(waitMs);
  });

  it.each([
    ["no entry", {}, 1],
    ["a tool entry", { exec: 2 }, 2],
    ["a risk entry", { exec: 2, dangerous: 3 }, 2],
    ["the larger of tool and risk entries", { exec: 3, dangerous: 2, process: 1 }, 3],
  ] as const)("requires approvals from %s", (_name, requiredApprovals, n) => {
    expect(
      resolveRequestPolicy({ ...base, requiredApprovals }, { tool: "exec", risk: "exec", channel: "c" })
        .requiredApprovals,
    ).toBe(n);
  });

  it.each([
    ["read_only", false],
    ["write", false],
    ["exec", true],
    ["dangerous", false],
  ] as const)("offers approve_always for %s calls: %s", (risk, offered) => {
    expect(resolveRequestPolicy(base, { tool: "t", risk, channel: "c" }).alwaysAllowed).toBe(offered);
  });
});

describe("validateApprovalPolicy", () => {
  it.each([
    ["a zero wait", { waitTimeoutMs: 0 }],
    ["an unknown risk level", { waitTimeoutMsByRisk: { extreme: 5 } as never }],
    ["eleven required approvals", { requiredApprovals: { exec: 11 } }],
    ["a negative reminder", { reminderBeforeMs: -1 }],
    [
      "an approver listed twice",
      {
        approvers: [
          { id: "a", email: null },
          { id: "a", email: null },
        ],
      },
    ],
  ])("fails closed on %s", (_name, patch) => {
    let error: unknown;
    try {
      validateApprovalPolicy({ ...base, ...patch });
    } catch (err) {
      error = err;
    }
    expect(isRunnerError(error, "APPROVAL_INPUT_INVALID")).toBe(true);
  });
});
