import type { RiskLevel } from "../catalog/index.js";

/**
 * Who an allow-always record applies to. A record never applies more widely than its scope: an
 * approval given for one agent's calls does not carry over to another agent.
 */
export const ALLOW_ALWAYS_SCOPES = ["agent", "schedule", "user"] as const;
export type AllowAlwaysScope = (typeof ALLOW_ALWAYS_SCOPES)[number];

/**
 * A persistent "allow always" decision (seed 002 allow-always; seed 000 step 9). It matches one tool
 * plus the exact canonical arguments a person approved (their hash), or an operator-written pattern
 * over a command — never a binary name alone. Never created or honoured for dangerous calls.
 */
export interface AllowAlwaysRecord {
  readonly v: 1;
  /** The grant's id, when the store gives one (operators revoke by it; the gate's reason names it). */
  readonly id?: string;
  readonly tool: string;
  /** SHA-256 of the canonical arguments that were approved; or undefined with a pattern. */
  readonly argsHash?: string;
  /**
   * Operator-written pattern: the exact command string, or a prefix ending in " *" that must match
   * whole words (`git log *` matches `git log --oneline`, not `git logx`). Only operators write these.
   */
  readonly commandPattern?: string;
  readonly scope: AllowAlwaysScope;
  /** The agent id, schedule id or user id the scope names. */
  readonly scopeId: string;
  readonly createdBy: string;
  readonly createdAt: number;
}

/** Looks up records. Injected so the gate stays pure (Redis implementation in approvals). */
export interface AllowAlwaysStore {
  /** Records for a tool within the given scopes. */
  find(
    tool: string,
    scopes: readonly { scope: AllowAlwaysScope; scopeId: string }[],
  ): Promise<readonly AllowAlwaysRecord[]>;
}

/** True when `record` covers this call. Dangerous calls never match. */
export function allowAlwaysMatches(
  record: AllowAlwaysRecord,
  call: { tool: string; argsHash: string; risk: RiskLevel; command?: string | undefined },
): boolean {
  if (call.risk === "dangerous" || record.tool !== call.tool) return false;
  if (record.argsHash !== undefined) return record.argsHash === call.argsHash;
  if (record.commandPattern === undefined || call.command === undefined) return false;
  const pattern = record.commandPattern.trim();
  const command = call.command.trim();
  if (pattern.endsWith(" *")) {
    const prefix = pattern.slice(0, -2).trim();
    // Whole words only, and never a pattern that is just a binary name (`rm *` would allow anything rm does).
    if (!prefix.includes(" ")) return false;
    return command === prefix || command.startsWith(`${prefix} `);
  }
  return command === pattern;
}
