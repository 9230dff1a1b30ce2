import type { Cluster, Redis } from "ioredis";
import { auditKeys, chainHash, GENESIS_HASH } from "./audit-chain.js";
import { decodeAuditFields } from "./audit-entry.js";

/** Kinds of broken link {@link verifyAudit} reports. */
export const AUDIT_BREAKS = [
  /** An entry that does not decode (missing fields, bad JSON, not the v1 schema). */
  "malformed",
  /**
   * An entry whose stored `prev` is not the hash of the entry before it: removed, inserted or
   * reordered entries (for an entry stored without `prev`, these show as a seq or hash mismatch).
   */
  "prev_mismatch",
  /** An entry whose sequence number is not one more than the previous one. */
  "seq_mismatch",
  /** An entry whose content (and, stored or carried, prev) no longer matches its own hash: an edited entry. */
  "hash_mismatch",
  /** The head record disagrees with the last entry: entries removed from the end, or a tampered head. */
  "head_mismatch",
] as const;
export type AuditBreak = (typeof AUDIT_BREAKS)[number];

/** Options for {@link verifyAudit}. */
export interface VerifyAuditOptions {
  redis: Redis | Cluster;
  /** Key prefix of the trail. Default "echo". */
  keyPrefix?: string;
  /** The HMAC key the trail was written with, if any. */
  hmacKey?: string;
  /** Entries read per XRANGE call. Default 500. */
  pageSize?: number;
}

/** The result of {@link verifyAudit}. */
export type AuditVerification =
  | { ok: true; checked: number; head: { hash: string; seq: number } | null }
  | {
      ok: false;
      /** Entries verified before the first broken link. */
      checked: number;
      brokenAt: { id: string | null; seq: number | null; problem: AuditBreak; message: string };
    };

/**
 * Walks the audit stream from the first entry, re-computing every hash and link, and reports the
 * first broken link. Reads page by page, so a long trail does not load into memory at once.
 */
export async function verifyAudit(options: VerifyAuditOptions): Promise<AuditVerification> {
  const keys = auditKeys(options.keyPrefix ?? "echo");
  const pageSize = options.pageSize ?? 500;
  let prev = GENESIS_HASH;
  let seq = 0;
  let checked = 0;
  let lastId: string | null = null;
  const broken = (id: string | null, at: number | null, problem: AuditBreak, message: string) =>
    ({ ok: false, checked, brokenAt: { id, seq: at, problem, message } }) as const;
  // The head is read before the walk, not after it: on a live system writers append while the walk
  // runs, and a head read last would be ahead of the walked chain and look like entries cut from
  // the end. The head and the stream change in one script and the head only moves forward, so every
  // entry up to the head read now must be there; entries appended during the walk are checked too.
  const [headHash, headSeqText] = await options.redis.hmget(keys.head, "hash", "seq");
  const headSeq = headHash === null ? 0 : Number(headSeqText);
  let hashAtHead: string | null = null;

  for (;;) {
    const start: string = lastId === null ? "-" : `(${lastId}`;
    const page = (await options.redis.xrange(keys.stream, start, "+", "COUNT", pageSize)) as [
      string,
      string[],
    ][];
    for (const [id, fields] of page) {
      lastId = id;
      // An entry stored without its prev (v2) links to the hash carried from the entry before it:
      // a removed, inserted or reordered entry then shows in its seq, and an edit in its hash.
      const decoded = decodeAuditFields(id, fields, prev);
      if (!decoded.ok) return broken(id, null, "malformed", `entry ${id}: ${decoded.problem}`);
      const { entry } = decoded.record;
      if (decoded.record.prev !== prev) {
        return broken(
          id,
          entry.seq,
          "prev_mismatch",
          `entry ${id} (seq ${entry.seq}) does not link to the entry before it: an entry was removed, inserted or reordered here`,
        );
      }
      if (entry.seq !== seq + 1) {
        return broken(id, entry.seq, "seq_mismatch", `entry ${id} has seq ${entry.seq}, expected ${seq + 1}`);
      }
      if (chainHash(prev, decoded.hashed, options.hmacKey) !== decoded.record.hash) {
        return broken(
          id,
          entry.seq,
          "hash_mismatch",
          decoded.prevStored
            ? `entry ${id} (seq ${entry.seq}) was edited: its hash does not match its content`
            : `entry ${id} (seq ${entry.seq}) was edited, or the entry before it replaced: its hash does not match its content and the hash before it`,
        );
      }
      prev = decoded.record.hash;
      seq = entry.seq;
      if (seq === headSeq) hashAtHead = prev;
      checked++;
    }
    if (page.length < pageSize) break;
  }

  if (headHash === null) {
    if (checked === 0) return { ok: true, checked, head: null };
    // No head when the walk began: the entries are new only if a head exists now.
    const [laterHead] = await options.redis.hmget(keys.head, "hash");
    if (laterHead === null) {
      return broken(
        lastId,
        seq,
        "head_mismatch",
        "the chain has entries but no head record: the head was removed",
      );
    }
  } else if (seq < headSeq) {
    return broken(
      lastId,
      seq === 0 ? null : seq,
      "head_mismatch",
      `the chain ends at seq ${seq} but the head record says seq ${headSeq}: entries were removed from the end, or the head was altered`,
    );
  } else if (hashAtHead !== headHash) {
    return broken(
      lastId,
      headSeq,
      "head_mismatch",
      `the head record (seq ${headSeq}) does not match the entry with that seq: the head was altered`,
    );
  }
  return { ok: true, checked, head: { hash: prev, seq } };
}
