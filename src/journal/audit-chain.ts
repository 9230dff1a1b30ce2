import { createHmac } from "node:crypto";
import { luaScript } from "../lua/index.js";
import { canonicalJson, sha256Hex } from "../shared/index.js";

/** The `prev` of the first entry. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * The hash of an entry: SHA-256 (or HMAC-SHA-256 when a key is configured) over the canonical JSON
 * of `{ prev, entry }`. Chaining `prev` means editing, removing, inserting or reordering an entry
 * breaks every later link.
 */
export function chainHash(prev: string, entry: unknown, hmacKey?: string): string {
  return chainHashOfJson(prev, canonicalJson(entry), hmacKey);
}

/**
 * {@link chainHash} of an entry already encoded as canonical JSON: the append stores that text and
 * hashes it, so each entry is encoded once. `{ prev, entry }` sorts `entry` first, so the material
 * is exactly the canonical JSON of the pair.
 */
export function chainHashOfJson(prev: string, entryJson: string, hmacKey?: string): string {
  const material = `{"entry":${entryJson},"prev":${JSON.stringify(prev)}}`;
  return hmacKey === undefined
    ? sha256Hex(material)
    : createHmac("sha256", hmacKey).update(material, "utf8").digest("hex");
}

/** Keys of the audit trail. One hash tag (`{audit}`), so the append script may touch all of them on a Cluster. */
export interface AuditKeys {
  stream: string;
  head: string;
  /**
   * The stream ids of one trace as a string, each id followed by a space (APPEND). A list of one
   * small element is a quicklist on Redis before 7.2 (232 bytes); a short string is ~100 fewer per
   * trace, and most traces (one parked run) hold one or two ids.
   */
  trace(traceId: string): string;
  /**
   * The trace index as earlier releases wrote it: a list of stream ids (RPUSH). Still read, never
   * written. A new name rather than a new type under the old one, so a worker of the previous
   * release appending during a rolling deploy never meets a string where it RPUSHes (that would
   * fail its script after the XADD, leaving an entry the head does not know).
   */
  legacyTrace(traceId: string): string;
  /**
   * The delivery ids of one trace's entries appended at most once (AuditTrail.appendOnce), each
   * followed by a space: a run's outbox entry found undelivered after a crash is sent again, and
   * this is how the second append knows the first one landed. Expires with the journal retention,
   * as long as such an entry can be left over.
   */
  delivered(traceId: string): string;
}

/** The audit keys under `prefix`. */
export function auditKeys(prefix: string): AuditKeys {
  return {
    stream: `${prefix}:{audit}:stream`,
    head: `${prefix}:{audit}:head`,
    trace: (traceId) => `${prefix}:{audit}:t:${traceId}`,
    legacyTrace: (traceId) => `${prefix}:{audit}:trace:${traceId}`,
    delivered: (traceId) => `${prefix}:{audit}:o:${traceId}`,
  };
}

/**
 * Appends a batch of entries if the chain head is still the one the client hashed the first of them
 * against (compare and append, atomic); KEYS, ARGV and the reply in auditAppend.lua.
 */
export const AUDIT_APPEND_LUA = luaScript(import.meta.url, "auditAppend.lua").lua;

/** The entries of one trace, in order, in one round trip; KEYS and the reply in auditReadTrace-3.lua. */
export const AUDIT_READ_TRACE_LUA = luaScript(import.meta.url, "auditReadTrace-3.lua").lua;
