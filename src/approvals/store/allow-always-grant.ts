import type { AllowAlwaysRecord } from "../../gate/index.js";

/** `permissions.approval.allow_always_ttl_days`' default, in ms: 30 days. */
export const DEFAULT_ALLOW_ALWAYS_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * An allow-always record as operators see it: the record, the id they revoke it by (`approvals
 * grants revoke <id>`, the API, /admin) and when it stops allowing (ms since the epoch).
 */
export interface AllowAlwaysGrant extends AllowAlwaysRecord {
  readonly id: string;
  readonly expiresAt: number;
  /** The run whose approval created it (absent for records written by earlier releases). */
  readonly runId?: string;
}

/**
 * Where grants and their revocations are recorded: the audit trail (runtime wires it; the use of a
 * grant is the gate's own step-9 decision entry, which names the grant id).
 */
export interface GrantAuditPort {
  granted(grant: AllowAlwaysGrant): Promise<void>;
  revoked(grant: AllowAlwaysGrant, by: string): Promise<void>;
}

/** One line per grant (CLI list), every value as stored: callers make it visible. */
export function grantSummary(grant: AllowAlwaysGrant): string {
  const what =
    grant.argsHash !== undefined ? `args ${grant.argsHash.slice(0, 12)}…` : `pattern ${grant.commandPattern}`;
  return [
    grant.id,
    grant.tool.padEnd(12),
    `${grant.scope} ${grant.scopeId}`,
    what,
    `by ${grant.createdBy}`,
    `created ${new Date(grant.createdAt).toISOString()}`,
    `expires ${new Date(grant.expiresAt).toISOString()}`,
  ].join("  ");
}
