import type { Cluster, Redis } from "ioredis";
import { type Clock, canonicalJson, RunnerError, systemClock } from "../shared/index.js";
import {
  AUDIT_APPEND_LUA,
  AUDIT_READ_TRACE_LUA,
  auditKeys,
  chainHashOfJson,
  GENESIS_HASH,
} from "./audit-chain.js";
import {
  AuditEvent,
  type AuditRecord,
  decodeAuditFields,
  storedAuditEntry,
  storesPrev,
} from "./audit-entry.js";
import { redactSecrets } from "./audit-redact.js";
import { type AuditVerification, verifyAudit } from "./audit-verify.js";
import { DEFAULT_JOURNAL_RETENTION_MS } from "./journal.js";
import { assertKeyPrefix, assertPositiveMs } from "./keys.js";

/** Options for {@link AuditTrail}. */
export interface AuditTrailOptions {
  /** A connected ioredis client or cluster. */
  redis: Redis | Cluster;
  /** Key prefix (no braces, no trailing colon). Default "echo". */
  keyPrefix?: string;
  /** Time stamped on entries. Default the system clock. */
  clock?: Clock;
  /**
   * When set, entry hashes are HMAC-SHA-256 with this key, so someone who can write to Redis but
   * does not hold the key cannot forge a consistent chain. Verification needs the same key.
   */
  hmacKey?: string;
  /** How many times an append re-hashes after losing a race to another writer. Default 100. */
  maxAppendAttempts?: number;
  /**
   * How long the delivery ids of {@link AuditTrail.appendOnce} are remembered, ms: at least as long
   * as an undelivered outbox entry can be left in a run's journal, i.e. the journal retention.
   * Default {@link DEFAULT_JOURNAL_RETENTION_MS}.
   */
  deliveryRetentionMs?: number;
}

declare const preparedBrand: unique symbol;
/** An event {@link AuditTrail.prepare} redacted and validated: appended without a second check. */
export type PreparedAuditEvent = AuditEvent & { readonly [preparedBrand]: true };

/** A delivery id: a short token without spaces (the marks are a space-separated string). */
const DELIVERY_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The last entry of the chain. */
export interface AuditHead {
  hash: string;
  seq: number;
}

/** Where an append landed. */
export interface AuditAppendResult {
  id: string;
  seq: number;
  hash: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type ScriptFn = (...args: string[]) => Promise<unknown>;
/** The batch append (its key count varies, so it is defined without numberOfKeys). */
const APPEND = "echoAuditAppendBatch";
/** At most this many entries per append round trip (bounds the script's argument list). */
const MAX_BATCH = 64;
/** How far back from the head a conflicting batch is looked for (see `#alreadyApplied`). */
const MAX_APPLIED_LOOKBACK = 256;

interface Waiting {
  event: AuditEvent;
  /** The delivery id of an at-most-once append, "" for none. */
  once: string;
  /** null: an at-most-once entry that was appended before (nothing written now). */
  resolve: (result: AuditAppendResult | null) => void;
  reject: (err: unknown) => void;
}
const READ_TRACE = "echoAuditReadTrace";

/**
 * The append-only, hash-chained audit trail of gate decisions and tool executions: one Redis stream,
 * each entry carrying the previous entry's hash and its own, appended by compare-and-append in Lua so
 * two writers never fork the chain. Reasoning in ARCHITECTURE.md.
 */
export class AuditTrail {
  readonly keyPrefix: string;
  readonly #redis: Redis | Cluster;
  readonly #clock: Clock;
  readonly #hmacKey: string | undefined;
  readonly #maxAttempts: number;
  readonly #deliveryRetentionMs: string;
  readonly #keys: ReturnType<typeof auditKeys>;
  #head: AuditHead | undefined;
  #waiting: Waiting[] = [];
  #draining = false;

  constructor(options: AuditTrailOptions) {
    const prefix = options.keyPrefix ?? "echo";
    assertKeyPrefix(prefix);
    this.keyPrefix = prefix;
    this.#redis = options.redis;
    this.#clock = options.clock ?? systemClock;
    this.#hmacKey = options.hmacKey;
    this.#maxAttempts = options.maxAppendAttempts ?? 100;
    const deliveryRetentionMs = options.deliveryRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
    assertPositiveMs("audit delivery retention", deliveryRetentionMs);
    this.#deliveryRetentionMs = String(deliveryRetentionMs);
    this.#keys = auditKeys(prefix);
    const commands = this.#redis as unknown as Record<string, unknown>;
    if (typeof commands[APPEND] !== "function") {
      this.#redis.defineCommand(APPEND, { lua: AUDIT_APPEND_LUA });
    }
    if (typeof commands[READ_TRACE] !== "function") {
      this.#redis.defineCommand(READ_TRACE, { numberOfKeys: 3, lua: AUDIT_READ_TRACE_LUA });
    }
  }

  /**
   * Appends a gate decision or an execution. Secret-named fields are redacted first; an event that
   * does not match the schema is refused with AUDIT_ENTRY_INVALID (nothing is written).
   * Appends from one instance are serialised; across instances the chain head decides the order.
   * Resolves only once the entry is stored (the caller may then act on the decision it records).
   * Appends that arrive while one is in flight are committed together in the next round trip
   * (group commit), so concurrent runs in one process do not queue one round trip each.
   */
  append(event: AuditEvent): Promise<AuditAppendResult> {
    let prepared: PreparedAuditEvent;
    try {
      prepared = this.prepare(event);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#enqueue(prepared, "") as Promise<AuditAppendResult>;
  }

  /**
   * Redacts secret-named fields and validates the event as {@link append} does, so it can be kept
   * (a run's outbox) and appended later by {@link appendOnce}; AUDIT_ENTRY_INVALID when it does
   * not match the schema.
   */
  prepare(event: AuditEvent): PreparedAuditEvent {
    const parsed = AuditEvent.safeParse(redactSecrets(event));
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(event)"}: ${i.message}`);
      throw new RunnerError("AUDIT_ENTRY_INVALID", `Audit event refused: ${problems.join("; ")}`, {
        data: { problems },
      });
    }
    return parsed.data as PreparedAuditEvent;
  }

  /**
   * Appends a prepared event at most once per `deliveryId` within its trace: resolves to where it
   * landed, or null when an append with the same id already landed (nothing is written). What an
   * outbox needs: a sender that died after appending but before saying so sends again, and the
   * second append finds the first one's id, atomically with the check (see AUDIT_APPEND_LUA).
   */
  appendOnce(event: PreparedAuditEvent, deliveryId: string): Promise<AuditAppendResult | null> {
    if (!DELIVERY_ID.test(deliveryId)) {
      return Promise.reject(
        new RunnerError(
          "AUDIT_ENTRY_INVALID",
          `delivery id must be 1 to 128 letters, digits, "_", ".", ":" or "-", got ${JSON.stringify(deliveryId.slice(0, 140))}`,
        ),
      );
    }
    return this.#enqueue(event, deliveryId);
  }

  #enqueue(event: AuditEvent, once: string): Promise<AuditAppendResult | null> {
    return new Promise<AuditAppendResult | null>((resolve, reject) => {
      this.#waiting.push({ event, once, resolve, reject });
      if (!this.#draining) {
        this.#draining = true;
        // From a microtask: appends made in the same turn (a run's outbox sends its entries
        // together) go in one round trip instead of one, then the rest.
        queueMicrotask(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH);
      try {
        const results = await this.#appendBatch(batch);
        for (const [i, w] of batch.entries()) w.resolve(results[i]!);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.#draining = false;
  }

  /** Appends a batch; each result is where its entry landed, or null for one delivered before. */
  async #appendBatch(batch: readonly Waiting[]): Promise<(AuditAppendResult | null)[]> {
    let head = this.#head ?? (await this.head()) ?? { hash: GENESIS_HASH, seq: 0 };
    const at = Math.floor(this.#clock.now());
    const append = this.#script(APPEND);
    const results: (AuditAppendResult | null)[] = batch.map(() => null);
    // Positions in `batch` still to append (entries found delivered before drop out).
    let todo = batch.map((_, i) => i);
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const keys = [this.#keys.stream, this.#keys.head];
      const linked: AuditAppendResult[] = [];
      const argv: string[] = [head.hash, String(head.seq + 1), this.#deliveryRetentionMs];
      let prev = head.hash;
      todo.forEach((position, i) => {
        const { event, once } = batch[position]!;
        const seq = head.seq + 1 + i;
        const stored = storedAuditEntry(event, seq, at);
        const entryJson = canonicalJson(stored);
        const hash = chainHashOfJson(prev, entryJson, this.#hmacKey);
        keys.push(this.#keys.trace(event.traceId), this.#keys.delivered(event.traceId));
        argv.push(hash, entryJson, storesPrev(stored) ? "1" : "0", once);
        linked.push({ id: "", seq, hash });
        prev = hash;
      });
      const reply = (await append(String(keys.length), ...keys, ...argv)) as string[];
      if (reply[0] === "ok") {
        const last = linked[linked.length - 1]!;
        this.#head = { hash: last.hash, seq: last.seq };
        todo.forEach((position, i) => {
          results[position] = { ...linked[i]!, id: reply[i + 1]! };
        });
        return results;
      }
      if (reply[0] === "delivered") {
        // Nothing was written: the head is unchanged, the rest goes again at once.
        const before = new Set(reply.slice(1).map((i) => todo[Number(i) - 1]));
        todo = todo.filter((position) => !before.has(position));
        if (todo.length === 0) return results;
        continue;
      }
      head = { hash: reply[1]!, seq: Number(reply[2]) };
      const applied = await this.#alreadyApplied(linked, head);
      if (applied) {
        const last = linked[linked.length - 1]!;
        this.#head = head.seq === last.seq ? { hash: last.hash, seq: last.seq } : undefined;
        todo.forEach((position, i) => {
          results[position] = applied[i]!;
        });
        return results;
      }
      // The first retry goes at once with the fresh head; later ones back off with jitter, so the
      // writer that just won (and already knows the head) does not keep winning every race.
      if (attempt > 1) await sleep(Math.random() * Math.min(50, 2 ** attempt));
    }
    this.#head = undefined;
    throw new RunnerError(
      "AUDIT_APPEND_CONFLICT",
      `Audit append lost the race to other writers ${this.#maxAttempts} times; the entry was not written`,
      { data: { traceIds: [...new Set(todo.map((p) => batch[p]!.event.traceId))] } },
    );
  }

  /**
   * Whether a batch that got a conflict is in fact already stored at exactly its place in the chain.
   * That happens when Redis applied the append but its reply was lost (a dropped connection, a Redis
   * restart from its AOF): ioredis sends the command again, the second run sees its own batch as the
   * head and answers "conflict". Re-hashing and appending again would record every entry twice. The
   * hashes chain prev + entry (including its seq and time), so the stored entry at the batch's first
   * seq carrying the batch's first hash is this batch. Returns its results, or null to retry as usual.
   */
  async #alreadyApplied(
    linked: readonly AuditAppendResult[],
    head: AuditHead,
  ): Promise<AuditAppendResult[] | null> {
    const first = linked[0]!;
    const last = linked[linked.length - 1]!;
    const behind = head.seq - first.seq + 1;
    if (head.seq < last.seq || behind > MAX_APPLIED_LOOKBACK) return null;
    const rows = (await this.#redis.xrevrange(this.#keys.stream, "+", "-", "COUNT", behind)) as [
      string,
      string[],
    ][];
    const bySeq = new Map<number, { id: string; hash: string }>();
    for (const [id, fields] of rows) {
      const decoded = decodeAuditFields(id, fields);
      if (decoded.ok) bySeq.set(decoded.record.entry.seq, { id, hash: decoded.record.hash });
    }
    const results: AuditAppendResult[] = [];
    for (const l of linked) {
      const stored = bySeq.get(l.seq);
      if (stored?.hash !== l.hash) return null;
      results.push({ ...l, id: stored.id });
    }
    return results;
  }

  /** The current head of the chain, or null when the trail is empty. */
  async head(): Promise<AuditHead | null> {
    const [hash, seq] = await this.#redis.hmget(this.#keys.head, "hash", "seq");
    if (hash == null || seq == null) return null;
    return { hash, seq: Number(seq) };
  }

  /**
   * Every entry of a trace, in append order, in one round trip. An indexed entry that is missing
   * from the stream or does not decode is AUDIT_CORRUPT (evidence is never silently dropped).
   */
  async readByTrace(traceId: string): Promise<AuditRecord[]> {
    if (typeof traceId !== "string" || traceId === "" || /[{}]/.test(traceId)) {
      throw new RunnerError("AUDIT_ENTRY_INVALID", `trace id must be a non-empty string without braces`);
    }
    const rows = (await this.#script(READ_TRACE)(
      this.#keys.stream,
      this.#keys.trace(traceId),
      this.#keys.legacyTrace(traceId),
    )) as [string, string[], string][];
    return rows.map(([id, fields, before]) => {
      if (fields.length === 0) {
        throw new RunnerError(
          "AUDIT_CORRUPT",
          `Audit entry ${id} of trace "${traceId}" is indexed but missing from the stream; run \`echo-runner audit verify\``,
          { data: { traceId, id } },
        );
      }
      const decoded = decodeAuditFields(id, fields, before);
      if (!decoded.ok) {
        throw new RunnerError(
          "AUDIT_CORRUPT",
          `Audit entry ${id} of trace "${traceId}" is corrupt: ${decoded.problem}`,
          {
            data: { traceId, id },
          },
        );
      }
      return decoded.record;
    });
  }

  /** Walks the whole chain (see {@link verifyAudit}). */
  verify(options: { pageSize?: number } = {}): Promise<AuditVerification> {
    return verifyAudit({ redis: this.#redis, keyPrefix: this.keyPrefix, hmacKey: this.#hmacKey, ...options });
  }

  #script(name: string): ScriptFn {
    const fn = (this.#redis as unknown as Record<string, ScriptFn>)[name];
    if (typeof fn !== "function") throw new RunnerError("INTERNAL", `audit command ${name} is not defined`);
    return fn.bind(this.#redis);
  }
}
