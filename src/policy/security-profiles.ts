import type { Capability, RiskLevel } from "../catalog/index.js";
import type { SecurityProfile } from "./settings.js";

/**
 * Capabilities with a side effect. A tool holding any of them is not read-only whatever its
 * declared risk says, which is how public_gateway also catches an external tool that declares
 * itself read_only but writes files.
 */
export const SIDE_EFFECT_CAPABILITIES: readonly Capability[] = [
  "fs.write",
  "process.exec",
  "process.manage",
  "code.exec",
  "scheduler.write",
  "skill.install",
  "skill.write",
  "workflow.write",
  "memory.write",
  "message.send",
  "message.ask",
  "media.generate",
  "knowledge.write",
  "task.write",
  "agent.dispatch",
];

/** What a security profile removes: tools with any of these capabilities or these risks. */
export interface SecurityProfileRule {
  /** seed 000 `DAEMON_DENY_CAPABILITIES` / `PUBLIC_GATEWAY_DENY_CAPABILITIES`. */
  readonly denyCapabilities: ReadonlySet<Capability>;
  /** Risks removed outright (public_gateway: "all write, exec and dangerous tools"). */
  readonly denyRisks: ReadonlySet<RiskLevel>;
  /** One line for explain output. */
  readonly summary: string;
}

/**
 * seed 000 security profiles (`security.profile`), layered on top of the tool profile:
 * - personal_cli: no extra limits.
 * - daemon: removes exec, execute_code, process and skill_install, expressed as the capabilities
 *   only they hold (process.exec, process.manage, code.exec, skill.install), so an external tool
 *   declaring them is removed too.
 * - public_gateway: removes every write, exec and dangerous tool, by risk and by side-effect
 *   capability.
 */
export const SECURITY_PROFILE_RULES: Readonly<Record<SecurityProfile, SecurityProfileRule>> = {
  personal_cli: {
    denyCapabilities: new Set(),
    denyRisks: new Set(),
    summary: "no extra limits",
  },
  daemon: {
    denyCapabilities: new Set<Capability>(["process.exec", "process.manage", "code.exec", "skill.install"]),
    denyRisks: new Set(),
    summary: "removes process and code execution and skill installation",
  },
  public_gateway: {
    denyCapabilities: new Set(SIDE_EFFECT_CAPABILITIES),
    denyRisks: new Set<RiskLevel>(["write", "exec", "dangerous"]),
    summary: "removes every write, exec and dangerous tool",
  },
};

/**
 * Why `profile` removes a tool of `risk` with `capabilities`, or undefined when it keeps it.
 */
export function securityProfileRemoval(
  profile: SecurityProfile,
  risk: RiskLevel,
  capabilities: Iterable<Capability>,
): string | undefined {
  const rule = SECURITY_PROFILE_RULES[profile];
  if (rule.denyRisks.has(risk)) return `its risk ${risk} is denied by this profile (${rule.summary})`;
  if (rule.denyCapabilities.size === 0) return undefined;
  const hits: Capability[] = [];
  for (const c of capabilities) if (rule.denyCapabilities.has(c)) hits.push(c);
  if (hits.length === 0) return undefined;
  const noun = hits.length === 1 ? "capability" : "capabilities";
  return `${noun} ${hits.join(", ")} ${hits.length === 1 ? "is" : "are"} denied by this profile (${rule.summary})`;
}
