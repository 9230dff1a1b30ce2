import type { Cluster, Redis } from "ioredis";
import { type AllowAlwaysGrant, type GrantAuditPort, RedisAllowAlwaysStore } from "../approvals/index.js";
import type { EchoRunnerConfig } from "../config/index.js";
import { AuditTrail } from "../journal/index.js";
import { type Clock, type DeepReadonly, systemClock } from "../shared/index.js";

/** The trace a grant's entries go to: the run that created it, else one of the grant's own. */
function traceOf(grant: AllowAlwaysGrant): string {
  return grant.runId ?? `allow-always-${grant.id}`;
}

function what(grant: AllowAlwaysGrant): Record<string, unknown> {
  return {
    grantId: grant.id,
    scope: grant.scope,
    scopeId: grant.scopeId,
    ...(grant.argsHash !== undefined
      ? { argsHash: grant.argsHash }
      : { commandPattern: grant.commandPattern }),
    expiresAt: grant.expiresAt,
  };
}

/**
 * Grants and revocations on the hash-chained audit trail, as step-9 (allow_always) decision entries
 * in the trace of the run that created the grant: `granted` is an allow by the person who approved
 * always, `revoked` a deny by the operator who revoked it (`detail.allowAlways` says which). A use
 * is the gate's own step-9 allow entry, whose reason names the grant id.
 */
export function grantAuditTrail(trail: AuditTrail): GrantAuditPort {
  return {
    async granted(grant) {
      const trace = traceOf(grant);
      await trail.append({
        kind: "decision",
        traceId: trace,
        executionId: trace,
        ...(grant.runId ? { runId: grant.runId } : {}),
        tool: grant.tool,
        risk: "exec",
        capabilities: [],
        verdict: "allow",
        step: 9,
        approvalSource: "human",
        approver: grant.createdBy,
        reason: `allow-always grant ${grant.id} created by ${grant.createdBy} for ${grant.scope} ${grant.scopeId}, until ${new Date(grant.expiresAt).toISOString()}`,
        detail: { allowAlways: "granted", ...what(grant) },
      });
    },
    async revoked(grant, by) {
      const trace = traceOf(grant);
      await trail.append({
        kind: "decision",
        traceId: trace,
        executionId: trace,
        ...(grant.runId ? { runId: grant.runId } : {}),
        tool: grant.tool,
        risk: "exec",
        capabilities: [],
        verdict: "deny",
        step: 9,
        approver: by,
        reason: `allow-always grant ${grant.id} revoked by ${by} (${grant.scope} ${grant.scopeId})`,
        detail: { allowAlways: "revoked", revokedBy: by, ...what(grant) },
      });
    },
  };
}

/**
 * The allow-always store of config: grants expire `permissions.approval.allow_always_ttl_days`
 * after they were made, and every grant and revocation goes to the audit trail.
 */
export function allowAlwaysFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  redis: Redis | Cluster,
  clock: Clock = systemClock,
): RedisAllowAlwaysStore {
  const keyPrefix = config.redis.key_prefix;
  return new RedisAllowAlwaysStore(redis, keyPrefix, {
    ttlMs: config.permissions.approval.allow_always_ttl_days * 24 * 3600 * 1000,
    clock,
    audit: grantAuditTrail(new AuditTrail({ redis, keyPrefix, clock })),
  });
}
