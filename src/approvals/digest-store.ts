import type { Cluster, Redis } from "ioredis";
import type { ApprovalKeys } from "./keys.js";

/**
 * Joins a request to its group's digest window, in one script so two senders cannot both be the
 * first. KEYS: of:<id>, win:<group>. ARGV: base, id, group, now, windowMs, ttlMs. Returns "!" when
 * the request opens the window (send it at once) or the id of the digest it joined. A request
 * asked again gets the same answer (retries and sweeps never move it).
 */
const JOIN = `
local prior = redis.call('GET', KEYS[1])
if prior then return prior end
local now = tonumber(ARGV[4])
local window = tonumber(ARGV[5])
local start = redis.call('GET', KEYS[2])
if (not start) or now >= tonumber(start) + window then
  redis.call('SET', KEYS[2], ARGV[4], 'PX', window + 3600000)
  redis.call('SET', KEYS[1], '!', 'PX', ARGV[6])
  return '!'
end
local digest = ARGV[3] .. '@' .. start
local set = ARGV[1] .. 'dg:set:' .. digest
redis.call('SADD', set, ARGV[2])
redis.call('PEXPIRE', set, ARGV[6])
redis.call('ZADD', ARGV[1] .. 'dg:due', 'NX', tonumber(start) + window, digest)
redis.call('SET', KEYS[1], digest, 'PX', ARGV[6])
return digest
`;

/** Claims due digests: each moves to now + lease, so a failed send is tried again, not lost. */
const CLAIM_DUE = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, d in ipairs(due) do redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), d) end
return due
`;

/** Removes sent members; an emptied digest leaves the due index. */
const REMOVE = `
for i = 1, #ARGV - 1 do redis.call('SREM', KEYS[1], ARGV[i]) end
if redis.call('SCARD', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[#ARGV]) end
return 1
`;

/**
 * The digest index (all keys under the approvals hash tag): the open window of each group (a run
 * or a schedule), which digest each request joined, the members of each digest, and when each is
 * due. Time is an argument, from the store's clock.
 */
export class DigestStore {
  readonly #redis: Redis | Cluster;
  readonly #keys: ApprovalKeys;

  constructor(redis: Redis | Cluster, keys: ApprovalKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /** `"!"`: the request opened the group's window (send now); otherwise the digest it joined. */
  async join(id: string, group: string, now: number, windowMs: number, ttlMs: number): Promise<string> {
    const base = this.#keys.base;
    return (await this.#redis.eval(
      JOIN,
      2,
      `${base}dg:of:${id}`,
      `${base}dg:win:${group}`,
      base,
      id,
      group,
      Math.floor(now),
      Math.floor(windowMs),
      Math.max(1, Math.floor(ttlMs)),
    )) as string;
  }

  /** Digests whose window closed, claimed for `leaseMs`. */
  async claimDue(now: number, leaseMs: number, limit = 100): Promise<string[]> {
    return (await this.#redis.eval(
      CLAIM_DUE,
      1,
      `${this.#keys.base}dg:due`,
      Math.floor(now),
      Math.floor(leaseMs),
      limit,
    )) as string[];
  }

  /** The request ids still to send in a digest. */
  async members(digest: string): Promise<string[]> {
    return (await this.#redis.smembers(`${this.#keys.base}dg:set:${digest}`)).sort();
  }

  /** Marks members sent (or no longer pending). */
  async remove(digest: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const base = this.#keys.base;
    await this.#redis.eval(REMOVE, 2, `${base}dg:set:${digest}`, `${base}dg:due`, ...ids, digest);
  }
}
