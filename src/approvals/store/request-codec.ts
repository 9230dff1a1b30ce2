import { sha256Hex } from "../../shared/index.js";
import type { ApprovalRequestFields } from "./record.js";

/**
 * The stored form of a request's immutable part (the `req` field of its hash), and its decoder.
 *
 * v2 stores only what the hash does not already hold, with short keys:
 * the id is the key, `runId`, `jobId` (absent when it equals the run id), `deadline`, `required`,
 * `noself`, `always` and `owner` are hash fields the Lua scripts read, `argsHash` is the SHA-256 of
 * `argsCanonical` and is recomputed, the trace id is left out when it is the run id, and null or
 * empty optional members are left out. That halves
 * the largest value of the request hash (~860 → ~400 bytes for an exec call), the biggest share of
 * Redis memory per parked run (docs/BENCHMARKS.md). v1 (the whole record as JSON, full key names)
 * is still read, so requests parked before an upgrade keep working.
 */

/** The hash fields a v2 `req` is completed from (as HGETALL returned them). */
export interface RequestHashFields {
  get(name: string): string | undefined;
}

/** The v2 `req` JSON of a request. */
export function encodeStoredRequest(fields: ApprovalRequestFields): string {
  const stored: Record<string, unknown> = {
    v: 2,
    k: fields.idempotencyKey,
    t: fields.tool,
    a: fields.argsCanonical,
    r: fields.risk,
    why: fields.reason,
    ag: fields.agent,
    c: fields.channel,
    // Named as in v1: the digest script reads it from the JSON.
    requestedAt: fields.requestedAt,
    ap: fields.approvers.map((a) => (a.email === null ? [a.id] : [a.id, a.email])),
  };
  // A top-level run's trace id is its run id (CLI, scheduler): stored only when it differs.
  if (fields.traceId !== fields.runId) stored.tr = fields.traceId;
  if (fields.flags.length > 0) stored.f = fields.flags;
  if (fields.scheduleId !== null) stored.s = fields.scheduleId;
  if (fields.parentRunId !== null) stored.p = fields.parentRunId;
  if (fields.remindAt !== null) stored.rm = fields.remindAt;
  return JSON.stringify(stored);
}

/**
 * The request fields from a parsed `req` value (v1 or v2) and the hash's own fields. Returns a
 * candidate for schema validation: anything malformed surfaces there as APPROVAL_CORRUPT, never as
 * a default. `why` is set when the stored form itself is unknown.
 */
export function storedRequestCandidate(
  id: string,
  stored: unknown,
  hash: RequestHashFields,
): { candidate: unknown; why?: string } {
  if (stored === null || typeof stored !== "object") return { candidate: stored };
  const s = stored as Record<string, unknown>;
  if (s.v === 1) return { candidate: stored };
  if (s.v !== 2)
    return { candidate: stored, why: `its request has the unknown stored version ${String(s.v)}` };
  const runId = hash.get("runId");
  const owner = hash.get("owner");
  return {
    candidate: {
      v: 1,
      id,
      idempotencyKey: s.k,
      jobId: hash.get("jobId") ?? runId,
      runId,
      traceId: s.tr ?? runId,
      tool: s.t,
      argsCanonical: s.a,
      argsHash: typeof s.a === "string" ? sha256Hex(s.a) : undefined,
      risk: s.r,
      flags: s.f ?? [],
      reason: s.why,
      agent: s.ag,
      scheduleId: s.s ?? null,
      parentRunId: s.p ?? null,
      owner: owner === undefined || owner === "" ? null : owner,
      channel: s.c,
      requestedAt: s.requestedAt,
      deadline: integerField(hash.get("deadline")),
      remindAt: s.rm ?? null,
      requiredApprovals: integerField(hash.get("required")),
      forbidSelfApproval: flagField(hash.get("noself")),
      alwaysAllowed: flagField(hash.get("always")),
      approvers: Array.isArray(s.ap) ? s.ap.map(approverOf) : s.ap,
    },
  };
}

function approverOf(entry: unknown): unknown {
  if (!Array.isArray(entry) || entry.length < 1 || entry.length > 2) return entry;
  return { id: entry[0], email: entry.length === 2 ? entry[1] : null };
}

/** A decimal integer field as a number; anything else stays as it is and fails validation. */
function integerField(raw: string | undefined): unknown {
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : raw;
}

/** "1" / "0" as a boolean; anything else stays as it is and fails validation. */
function flagField(raw: string | undefined): unknown {
  return raw === "1" ? true : raw === "0" ? false : raw;
}
