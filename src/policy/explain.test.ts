import { describe, expect, it } from "vitest";
import { explainTool } from "./explain.js";
import { resolveToolPolicy } from "./resolve-tool-policy.js";
import { openInput } from "./test-support.fixture.js";

describe("explainTool", () => {
  it("gives every layer's verdict in order, and removal by the first layer that removes", () => {
    const input = openInput({
      securityProfile: "daemon",
      sessionMode: "read-only",
      lists: [{ label: "project", deny: ["exec"] }],
    });
    const e = explainTool(input, "exec");
    expect(e.layers.map((l) => [l.label, l.verdict])).toEqual([
      ["catalog", "keep"],
      ["profile=full", "keep"],
      ["deny", "remove"],
      ["security_profile=daemon", "remove"],
      ["network_policy=allow", "keep"],
      ["session_mode=read-only", "remove"],
      ["job_subset", "keep"],
      ["tool_state", "keep"],
      ["deferred_loading", "skip"],
    ]);
    expect(e.outcome).toBe("removed");
    expect(e.removedBy?.layer).toBe("deny");
    expect(e.layers[3]?.reason).toBe(
      'Tool "exec" removed by layer security_profile=daemon: capability process.exec is denied by this profile (removes process and code execution and skill installation)',
    );
    expect(e).toMatchObject({
      kind: "catalog",
      section: "runtime",
      reserved: false,
      present: true,
      forCall: false,
    });
    expect(e.risk.level).toBe("exec");
    expect(e.capabilities).toEqual(["process.exec"]);
    expect(e.profiles).toEqual(["full"]);
  });

  it.each([
    ["read_file", {}, "visible"],
    ["web_fetch", { deferred: ["web_fetch"] }, "deferred"],
    ["tool_search", { deferred: ["web_fetch"] }, "visible"],
    ["tool_search", {}, "removed"],
    ["agents_list", {}, "removed"],
    ["mcp__x__y", {}, "removed"],
    ["bogus", {}, "removed"],
  ] as const)("agrees with resolveToolPolicy on %s under %j (%s)", (tool, patch, outcome) => {
    const input = openInput(patch);
    const e = explainTool(input, tool);
    expect(e.outcome).toBe(outcome);
    const r = resolveToolPolicy(input);
    expect(e.outcome === "visible").toBe(r.visible.includes(tool));
    expect(e.outcome === "deferred").toBe(r.deferred.includes(tool));
  });

  it("says why an unknown name and an absent external tool are not available", () => {
    expect(explainTool(openInput(), "bogus").removedBy?.reason).toBe(
      'Tool "bogus" removed by layer catalog: it is neither in the catalog nor an external mcp__<server>__<tool>',
    );
    const absent = explainTool(openInput(), "mcp__x__y");
    expect(absent).toMatchObject({ kind: "external", present: false });
    expect(absent.removedBy?.reason).toBe(
      'Tool "mcp__x__y" removed by layer tool_state: it is not present (no implementation is registered)',
    );
    expect(absent.risk.level).toBe("exec");
  });

  it("explains one call with its arguments: inherited child capabilities can remove a listed tool", () => {
    const input = openInput({ securityProfile: "daemon" });
    expect(explainTool(input, "spawn_task").outcome).toBe("visible");
    const e = explainTool(input, "spawn_task", { args: { allowed_tools: ["execute_code"] } });
    expect(e.forCall).toBe(true);
    expect(e.outcome).toBe("removed");
    expect(e.removedBy?.label).toBe("security_profile=daemon");
    expect(e.capabilities).toEqual(["agent.dispatch", "code.exec", "process.exec"]);
  });

  it("keeps a place for the gate's steps, not evaluated unless supplied", () => {
    expect(explainTool(openInput(), "read_file").gate).toEqual({
      evaluated: false,
      note: "policy explain does not run the approval gate's steps yet",
      steps: [],
    });
    const gate = {
      evaluated: true,
      note: "",
      steps: [{ step: 5, name: "read_only", verdict: "allow" as const, reason: "read-only" }],
    };
    expect(explainTool(openInput(), "read_file", { gate }).gate).toBe(gate);
  });

  it("notes what a keeping layer still limits", () => {
    const e = explainTool(
      openInput({ networkPolicy: "restricted", allowedHosts: ["api.example.com"], sessionMode: "guarded" }),
      "web_fetch",
    );
    expect(e.layers.find((l) => l.layer === "network_policy")?.reason).toBe(
      "kept; outbound requests only to api.example.com",
    );
    expect(e.layers.find((l) => l.layer === "session_mode")?.reason).toBe(
      "kept; exec mode ask, file access and exec path operands workspace-only (session mode guarded)",
    );
  });
});
