import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveRequestPolicy } from "../../src/approvals/index.js";
import { approvalPolicyFromConfig } from "../../src/runtime/index.js";
import { testConfig } from "../helpers/agent-harness.js";

describe("the approval policy from config", () => {
  it("takes waits per risk and per channel (channel first), required approvals and approvers", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-apc-"));
    const config = await testConfig(dir, {
      permissions: {
        approval: {
          wait_timeout_seconds: 600,
          wait_timeout_by_risk: { exec: 7200 },
          wait_timeout_by_channel: { cron: 86_400 },
          required_approvals: { cronjob: 2 },
        },
      },
      // Two people: a quorum of 2 that one approver cannot reach is refused by config check.
      approvers: [
        { id: "ann", email: "ann@example.test" },
        { id: "bob", email: "bob@example.test" },
      ],
    });
    const policy = approvalPolicyFromConfig(config);
    const wait = (risk: "write" | "exec", channel: string) =>
      resolveRequestPolicy(policy, { tool: "exec", risk, channel }).waitMs;
    expect(wait("write", "api")).toBe(600_000);
    expect(wait("exec", "api")).toBe(7_200_000);
    expect(wait("exec", "cron")).toBe(86_400_000);
    expect(
      resolveRequestPolicy(policy, { tool: "cronjob", risk: "dangerous", channel: "api" }).requiredApprovals,
    ).toBe(2);
    expect(policy.approvers).toEqual([
      { id: "ann", email: "ann@example.test" },
      { id: "bob", email: "bob@example.test" },
    ]);
  });
});
