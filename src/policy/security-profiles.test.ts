import { describe, expect, it } from "vitest";
import { CAPABILITIES, TOOL_CATALOG } from "../catalog/index.js";
import {
  SECURITY_PROFILE_RULES,
  SIDE_EFFECT_CAPABILITIES,
  securityProfileRemoval,
} from "./security-profiles.js";
import { EXEC_MODE_BY_PERMISSION_MODE, resolveSessionPermissionPolicy } from "./session-mode.js";
import { SECURITY_PROFILES, SESSION_PERMISSION_MODES } from "./settings.js";

describe("security profiles", () => {
  it("has a rule for every profile and names only known capabilities", () => {
    expect(Object.keys(SECURITY_PROFILE_RULES).sort()).toEqual([...SECURITY_PROFILES].sort());
    for (const rule of Object.values(SECURITY_PROFILE_RULES)) {
      for (const c of rule.denyCapabilities) expect(CAPABILITIES).toContain(c);
    }
  });

  it("agrees with the catalog: a tool is read_only exactly when it holds no side-effect capability", () => {
    for (const entry of TOOL_CATALOG) {
      const sideEffects = entry.capabilities.filter((c) => SIDE_EFFECT_CAPABILITIES.includes(c));
      expect([entry.name, sideEffects.length === 0]).toEqual([entry.name, entry.risk === "read_only"]);
    }
  });

  it.each([
    ["personal_cli", "dangerous", ["scheduler.write"], false],
    ["daemon", "exec", ["agent.dispatch"], false],
    ["daemon", "read_only", ["code.exec"], true],
    ["public_gateway", "read_only", ["network.outbound"], false],
    ["public_gateway", "read_only", ["memory.write"], true],
    ["public_gateway", "write", [], true],
  ] as const)("%s with risk %s and %j removes: %s", (profile, risk, caps, removes) => {
    expect(securityProfileRemoval(profile, risk, caps) !== undefined).toBe(removes);
  });
});

describe("session permission modes", () => {
  it.each(SESSION_PERMISSION_MODES)("maps %s as seed 002's EXEC_MODE_BY_PERMISSION_MODE", (mode) => {
    const policy = resolveSessionPermissionPolicy(mode);
    expect(policy.execMode).toBe(EXEC_MODE_BY_PERMISSION_MODE[mode]);
    expect(policy.workspaceOnly).toBe(mode !== "full");
    expect(policy.readOnly).toBe(mode === "read-only");
  });

  it("matches the seed's table", () => {
    expect(EXEC_MODE_BY_PERMISSION_MODE).toEqual({
      "read-only": "deny",
      guarded: "ask",
      workspace: "auto",
      full: "full",
    });
  });
});
