import { describe, expect, it } from "vitest";
import { capabilitiesOfCall, classifyRisk, explainRisk } from "./classify-risk.js";

describe("classifyRisk", () => {
  it.each([
    ["read_file", {}, undefined, {}, "read_only"],
    ["read_file", {}, "write", {}, "write"],
    ["exec", {}, "read_only", {}, "exec"],
    ["cronjob", {}, undefined, {}, "dangerous"],
    ["mcp__slack__send", {}, undefined, {}, "exec"],
    ["mcp__docs__get", {}, "read_only", {}, "read_only"],
    ["mcp__ops__deploy", {}, "dangerous", {}, "dangerous"],
    ["not_a_tool", {}, "read_only", {}, "dangerous"],
    ["read_file", {}, undefined, { readOnly: false }, "write"],
    ["read_file", {}, undefined, { readOnly: true }, "read_only"],
    ["write_file", {}, undefined, { destructive: true }, "exec"],
    ["cronjob", {}, undefined, { readOnly: true, destructive: false }, "dangerous"],
    ["delegate_task", { allowed_tools: ["read_file"] }, undefined, {}, "exec"],
    ["delegate_task", { allowed_tools: ["read_file", "cronjob"] }, undefined, {}, "dangerous"],
    ["spawn_task", { allowed_tools: ["skill_install"] }, undefined, {}, "dangerous"],
    ["spawn_task", { allowed_tools: ["made_up"] }, undefined, {}, "dangerous"],
    ["delegate_task", {}, undefined, {}, "exec"],
    ["exec", { allowed_tools: ["cronjob"] }, undefined, {}, "exec"],
    // task and workflow start children like delegate_task / spawn_task, and are judged the same way.
    ["task", { action: "create", task: "t", allowed_tools: ["read_file"] }, undefined, {}, "write"],
    ["task", { action: "create", task: "t", allowed_tools: ["cronjob"] }, undefined, {}, "dangerous"],
    ["task", { action: "create", task: "t" }, undefined, {}, "exec"],
    ["task", { action: "status", id: "x", allowed_tools: ["cronjob"] }, undefined, {}, "write"],
    [
      "workflow",
      { action: "create", steps: [{ id: "a", task: "t", allowed_tools: ["read_file"] }] },
      undefined,
      {},
      "write",
    ],
    [
      "workflow",
      {
        action: "create",
        steps: [
          { id: "a", task: "t", allowed_tools: ["read_file"] },
          { id: "b", task: "t", allowed_tools: ["skill_install"] },
        ],
      },
      undefined,
      {},
      "dangerous",
    ],
    [
      "workflow",
      {
        action: "create",
        steps: [
          { id: "a", task: "t", allowed_tools: ["read_file"] },
          { id: "b", task: "t" },
        ],
      },
      undefined,
      {},
      "exec",
    ],
    ["workflow", { action: "stop", id: "w" }, undefined, {}, "write"],
  ] as const)(
    "classifies %s with args %j, declared %s, facts %j as %s",
    (tool, args, declared, facts, expected) => {
      expect(classifyRisk(tool, args, declared, facts)).toBe(expected);
    },
  );

  it("reports each source and why the arguments raised the risk", () => {
    const r = explainRisk("delegate_task", { allowed_tools: ["read_file", "cronjob"] }, "write");
    expect(r).toMatchObject({
      level: "dangerous",
      staticRisk: "exec",
      declaredRisk: "write",
      argumentRisk: "dangerous",
    });
    expect(r.reasons[0]).toContain("cronjob");
  });

  it("never lowers the risk through the arguments", () => {
    const r = explainRisk("exec", { allowed_tools: [] }, undefined, { readOnly: true, destructive: false });
    expect(r.level).toBe("exec");
    expect(r.argumentRisk).toBeUndefined();
  });
});

describe("capabilitiesOfCall", () => {
  it("gives a child-agent tool the capabilities of the tools it hands its child", () => {
    expect(capabilitiesOfCall("task", { action: "create", task: "t", allowed_tools: ["exec"] })).toContain(
      "process.exec",
    );
    expect(
      capabilitiesOfCall("workflow", {
        action: "create",
        steps: [{ id: "a", task: "t", allowed_tools: ["web_fetch"] }],
      }),
    ).toContain("network.outbound");
    expect(capabilitiesOfCall("delegate_task", { allowed_tools: ["exec", "web_fetch"] })).toEqual([
      "agent.dispatch",
      "process.exec",
      "network.outbound",
    ]);
  });

  it("leaves other tools' capabilities alone", () => {
    expect(capabilitiesOfCall("exec", { allowed_tools: ["web_fetch"] })).toEqual(["process.exec"]);
    expect(capabilitiesOfCall("spawn_task", {})).toEqual(["agent.dispatch"]);
  });
});
