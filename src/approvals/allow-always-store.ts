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
  return `${scope}:${scope === "user" ? normaliseIdentity(scopeId) : scopeId}:`;
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

  /** Removes every record of a tool within a scope (an operator revoking them). */
  async removeScope(tool: string, scope: AllowAlwaysScope, scopeId: string): Promise<number> {
    const fields = await this.#redis.hkeys(this.#key(tool));
    const mine = fields.filter((f) => f.startsWith(scopeField(scope, scopeId)));
    return mine.length ? this.#redis.hdel(this.#key(tool), ...mine) : 0;
  }

  async find(
    tool: string,
    scopes: readonly { scope: AllowAlwaysScope; scopeId: string }[],
  ): Promise<readonly AllowAlwaysRecord[]> {
    const all = await this.#redis.hgetall(this.#key(tool));
    const out: AllowAlwaysRecord[] = [];
    for (const [field, raw] of Object.entries(all)) {
      if (!scopes.some((s) => field.startsWith(scopeField(s.scope, s.scopeId)))) continue;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        continue;
      }
      const parsed = RecordSchema.safeParse(json);
      if (parsed.success && parsed.data.tool === tool) out.push(parsed.data as AllowAlwaysRecord);
    }
    return out;
  }
}
