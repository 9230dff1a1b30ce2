import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import { isExecClassTool } from "../catalog/index.js";
import type { AllowAlwaysRecord, AllowAlwaysScope, AllowAlwaysStore } from "../gate/index.js";
import { normaliseIdentity, RunnerError } from "../shared/index.js";

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
 * may contain ":", so the field of agent `ops:test` starts with agent `ops`'s prefix (issue 30: a
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
  scope: z.enum(["agent", "schedule", "user"]),
  scopeId: z.string().min(1),
  createdBy: z.string().min(1),
  createdAt: z.number().int().nonnegative(),
});

/**
 * Allow-always records in Redis: one hash per tool, a field per scope and approved argument hash
 * (or operator pattern). Never written for dangerous tools (the gate would not honour them either);
 * a corrupt record is skipped with an error code, never read as a broader allowance.
 */
export class RedisAllowAlwaysStore implements AllowAlwaysStore {
  readonly #redis: Redis | Cluster;
  readonly #base: string;

  constructor(redis: Redis | Cluster, keyPrefix: string) {
    this.#redis = redis;
    this.#base = `${keyPrefix}:{approvals}:always:`;
  }

  #key(tool: string): string {
    return `${this.#base}${tool}`;
  }

  /** Adds (or replaces) a record. Only exec-class tools may get one. */
  async add(record: AllowAlwaysRecord): Promise<void> {
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
    await this.#redis.hset(this.#key(record.tool), field, JSON.stringify(record));
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

  async find(
    tool: string,
    scopes: readonly { scope: AllowAlwaysScope; scopeId: string }[],
  ): Promise<readonly AllowAlwaysRecord[]> {
    const all = await this.#redis.hgetall(this.#key(tool));
    const out: AllowAlwaysRecord[] = [];
    for (const [field, raw] of Object.entries(all)) {
      const record = parseRecord(raw);
      if (record === null || record.tool !== tool) continue;
      const match = scopes.some(
        (s) => field.startsWith(scopeField(s.scope, s.scopeId)) && inScope(record, s.scope, s.scopeId),
      );
      if (match) out.push(record as AllowAlwaysRecord);
    }
    return out;
  }
}

function parseRecord(raw: string): z.infer<typeof RecordSchema> | null {
  try {
    const parsed = RecordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
