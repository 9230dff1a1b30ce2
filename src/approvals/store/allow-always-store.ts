import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import { EXEC_CLASS_TOOLS, isExecClassTool } from "../../catalog/index.js";
import {
  ALLOW_ALWAYS_SCOPES,
  type AllowAlwaysRecord,
  type AllowAlwaysScope,
  type AllowAlwaysStore,
} from "../../gate/index.js";
import { type Clock, normaliseIdentity, RunnerError, sha256Hex, systemClock } from "../../shared/index.js";
import {
  type AllowAlwaysGrant,
  DEFAULT_ALLOW_ALWAYS_TTL_MS,
  type GrantAuditPort,
} from "./allow-always-grant.js";
import type { DamagedRecord } from "./damaged-record.js";

/**
 * The field prefix of a scope. A user scope names a person, so it is keyed by the normalised identity:
 * "Alice" and "alice " reach the same records (and no differently spelled name gets its own).
 */
function scopeField(scope: AllowAlwaysScope, scopeId: string): string {
  return `${scope}:${scopeKey(scope, scopeId)}:`;
}

function scopeKey(scope: AllowAlwaysScope, scopeId: string): string {
  return scope === "user" ? normaliseIdentity(scopeId) : scopeId;
}

/**
 * Whether a stored record belongs to exactly this scope. The field prefix alone is not enough: ids
 * may contain ":", so the field of agent `ops:test` starts with agent `ops`'s prefix (else a
 * grant for `ops:test` let `ops` run the command). The record's own scope and id must equal it.
 */
function inScope(
  record: { scope: AllowAlwaysScope; scopeId: string },
  scope: AllowAlwaysScope,
  scopeId: string,
): boolean {
  return record.scope === scope && scopeKey(scope, record.scopeId) === scopeKey(scope, scopeId);
}

const RecordSchema = z.strictObject({
  v: z.literal(1),
  tool: z.string().min(1),
  argsHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  commandPattern: z.string().min(1).optional(),
  scope: z.enum(ALLOW_ALWAYS_SCOPES),
  scopeId: z.string().min(1),
  createdBy: z.string().min(1),
  createdAt: z.number().int().nonnegative(),
  /** The run whose approval created it (absent for records written by earlier releases). */
  runId: z.string().min(1).optional(),
});
type StoredRecord = z.infer<typeof RecordSchema>;

/** The grant id of a record: the first 64 bits of SHA-256 over tool and field, in hex. */
function grantId(tool: string, field: string): string {
  return sha256Hex(`${tool}\n${field}`).slice(0, 16);
}

/** Options for {@link RedisAllowAlwaysStore}. */
export interface AllowAlwaysStoreOptions {
  /**
   * How long a grant allows, ms from its creation (`permissions.approval.allow_always_ttl_days`).
   * Counted from `createdAt` with today's setting, so lowering it shortens every grant at once.
   * Default 30 days.
   */
  ttlMs?: number;
  clock?: Clock;
  /** Where grants and revocations are recorded (the audit trail); none by default. */
  audit?: GrantAuditPort;
}

/**
 * Allow-always records in Redis: one hash per tool, a field per scope and approved argument hash
 * (or operator pattern). Never written for dangerous tools (the gate would not honour them either);
 * a corrupt record is skipped with an error code, never read as a broader allowance. A grant older
 * than the TTL allows nothing and is deleted when next read.
 */
export class RedisAllowAlwaysStore implements AllowAlwaysStore {
  readonly #redis: Redis | Cluster;
  readonly #base: string;
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #audit: GrantAuditPort | undefined;

  constructor(redis: Redis | Cluster, keyPrefix: string, options: AllowAlwaysStoreOptions = {}) {
    this.#redis = redis;
    this.#base = `${keyPrefix}:{approvals}:always:`;
    this.#ttlMs = options.ttlMs ?? DEFAULT_ALLOW_ALWAYS_TTL_MS;
    if (!Number.isSafeInteger(this.#ttlMs) || this.#ttlMs <= 0) {
      throw new RunnerError(
        "CONFIG_INVALID",
        `the allow-always TTL must be a positive number of ms, got ${this.#ttlMs}`,
      );
    }
    this.#clock = options.clock ?? systemClock;
    this.#audit = options.audit;
  }

  #key(tool: string): string {
    return `${this.#base}${tool}`;
  }

  #grant(field: string, record: StoredRecord): AllowAlwaysGrant {
    return {
      ...(record as AllowAlwaysRecord),
      id: grantId(record.tool, field),
      expiresAt: record.createdAt + this.#ttlMs,
    };
  }

  /**
   * Adds (or replaces) a record; only exec-class tools may get one. Returns the grant, which the
   * audit trail records (`granted`) before this resolves.
   */
  async add(record: AllowAlwaysRecord & { runId?: string }): Promise<AllowAlwaysGrant> {
    const parsed = RecordSchema.safeParse(record);
    if (!parsed.success || (record.argsHash === undefined) === (record.commandPattern === undefined)) {
      throw new RunnerError(
        "APPROVAL_INPUT_INVALID",
        "an allow-always record needs a tool, a scope and exactly one of argsHash or commandPattern",
      );
    }
    if (!isExecClassTool(record.tool)) {
      throw new RunnerError(
        "APPROVAL_NOT_ALLOWED",
        `allow-always records are for exec-class tools only, not "${record.tool}"`,
      );
    }
    const field = `${scopeField(record.scope, record.scopeId)}${record.argsHash ?? `pattern:${record.commandPattern}`}`;
    await this.#redis.hset(this.#key(record.tool), field, JSON.stringify(parsed.data));
    const grant = this.#grant(field, parsed.data);
    await this.#audit?.granted(grant);
    return grant;
  }

  /** Removes every record of a tool within exactly this scope (an operator revoking them). */
  async removeScope(tool: string, scope: AllowAlwaysScope, scopeId: string): Promise<number> {
    const all = await this.#redis.hgetall(this.#key(tool));
    const mine = Object.entries(all)
      .filter(([field, raw]) => {
        if (!field.startsWith(scopeField(scope, scopeId))) return false;
        const parsed = parseRecord(raw);
        // An unreadable record under this prefix goes too: it can never be honoured anyway.
        return parsed === null || inScope(parsed, scope, scopeId);
      })
      .map(([field]) => field);
    return mine.length ? this.#redis.hdel(this.#key(tool), ...mine) : 0;
  }

  /** Every live grant, newest first (expired ones are deleted on the way). */
  async list(): Promise<AllowAlwaysGrant[]> {
    return (await this.listWithDamaged()).grants;
  }

  /**
   * Every live grant, newest first, and every stored record that cannot be read (by the id a grant
   * of its field would have): such a record allows nothing, and is named so it is not hidden.
   */
  async listWithDamaged(): Promise<{ grants: AllowAlwaysGrant[]; damaged: DamagedRecord[] }> {
    const grants: AllowAlwaysGrant[] = [];
    const damaged: DamagedRecord[] = [];
    for (const tool of EXEC_CLASS_TOOLS) {
      const read = await this.#read(tool);
      for (const { grant } of read.live) grants.push(grant);
      damaged.push(...read.damaged);
    }
    return {
      grants: grants.sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id)),
      damaged: damaged.sort((a, b) => a.id.localeCompare(b.id)),
    };
  }

  /**
   * Revokes one grant by id: it allows nothing from now on, and the audit trail records who revoked
   * it. APPROVAL_GRANT_NOT_FOUND when no live grant has the id (never revoked twice).
   */
  async revoke(id: string, by: string): Promise<AllowAlwaysGrant> {
    for (const tool of EXEC_CLASS_TOOLS) {
      for (const { field, grant } of await this.#live(tool)) {
        if (grant.id !== id) continue;
        // Only the one who deletes it records the revocation: two operators revoking at once is one entry.
        if ((await this.#redis.hdel(this.#key(tool), field)) === 1) {
          await this.#audit?.revoked(grant, by);
          return grant;
        }
      }
    }
    throw new RunnerError(
      "APPROVAL_GRANT_NOT_FOUND",
      `no live allow-always grant has id "${id}"; \`echo-runner approvals grants list\` shows the ids (an expired grant is gone already)`,
      { data: { id } },
    );
  }

  async find(
    tool: string,
    scopes: readonly { scope: AllowAlwaysScope; scopeId: string }[],
  ): Promise<readonly AllowAlwaysRecord[]> {
    const out: AllowAlwaysRecord[] = [];
    for (const { field, record, grant } of await this.#live(tool)) {
      if (record.tool !== tool) continue;
      const match = scopes.some(
        (s) => field.startsWith(scopeField(s.scope, s.scopeId)) && inScope(record, s.scope, s.scopeId),
      );
      if (match) out.push(grant);
    }
    return out;
  }

  /** The readable, unexpired records of a tool; expired ones are deleted (they allow nothing). */
  async #live(tool: string): Promise<LiveRecord[]> {
    return (await this.#read(tool)).live;
  }

  /** {@link #live}, and the tool's records that cannot be read (they allow nothing either). */
  async #read(tool: string): Promise<{ live: LiveRecord[]; damaged: DamagedRecord[] }> {
    const key = this.#key(tool);
    const all = await this.#redis.hgetall(key);
    const now = this.#clock.now();
    const live: LiveRecord[] = [];
    const damaged: DamagedRecord[] = [];
    const expired: string[] = [];
    for (const [field, raw] of Object.entries(all)) {
      const read = readRecord(raw);
      if ("why" in read) {
        damaged.push({
          id: grantId(tool, field),
          code: "APPROVAL_CORRUPT",
          message: `allow-always record ${JSON.stringify(field)} of ${tool} is corrupt: ${read.why}; it allows nothing — delete that field of ${key} in Redis`,
        });
        continue;
      }
      const grant = this.#grant(field, read.record);
      if (grant.expiresAt <= now) expired.push(field);
      else live.push({ field, record: read.record, grant });
    }
    if (expired.length > 0) await this.#redis.hdel(key, ...expired);
    return { live, damaged };
  }
}

type LiveRecord = { field: string; record: StoredRecord; grant: AllowAlwaysGrant };

function parseRecord(raw: string): StoredRecord | null {
  const read = readRecord(raw);
  return "record" in read ? read.record : null;
}

/** A stored record, or why it is not one (a corrupt record is never read as a broader allowance). */
function readRecord(raw: string): { record: StoredRecord } | { why: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { why: "it is not valid JSON" };
  }
  const parsed = RecordSchema.safeParse(value);
  if (parsed.success) return { record: parsed.data };
  const issue = parsed.error.issues[0];
  return { why: `${issue?.path.map(String).join(".") || "(record)"}: ${issue?.message ?? "invalid"}` };
}
