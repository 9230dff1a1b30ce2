import type { Cluster, Redis } from "ioredis";
import type { ApprovalKeys, ApprovalRecord } from "../store/index.js";

/**
 * Joins a request to its group's digest window, in one script so two senders cannot both be the
 * first. KEYS: req:<id>, then the schedule's window key (schedule groups) or the run's request
 * index (run groups). ARGV: base, id, group, now, windowMs, ttlMs, kind (schedule | run).
 * Returns "!" when the request is sent on its own (it opens the window) or the digest it joined;
 * a request asked again gets the same answer. A joined request keeps its digest in its own hash
 * (`dg`); a request sent on its own stores nothing, so a parked run is no larger: a run's window
 * is found from its other requests, a schedule's in one key per schedule.
 */
const JOIN = `
local prior = redis.call('HGET', KEYS[1], 'dg')
if prior then return prior end
local base, id = ARGV[1], ARGV[2]
local now, window = tonumber(ARGV[4]), tonumber(ARGV[5])
local start = nil
if ARGV[7] == 'schedule' then
  local win = redis.call('GET', KEYS[2])
  if win then
    local s, first = string.match(win, '^(%d+)|(.*)$')
    if first == id then return '!' end
    if s and now < tonumber(s) + window then start = s end
  end
  if not start then
    redis.call('SET', KEYS[2], ARGV[4] .. '|' .. id, 'PX', window + 3600000)
    return '!'
  end
else
  -- The run's request index: a hash, a set for runs parked by earlier releases.
  local others
  if redis.call('TYPE', KEYS[2]).ok == 'set' then others = redis.call('SMEMBERS', KEYS[2])
  else others = redis.call('HKEYS', KEYS[2]) end
  for _, other in ipairs(others) do
    if other ~= id then
      local oreq = base .. 'req:' .. other
      if redis.call('HEXISTS', oreq, 'dg') == 0 and redis.call('HGET', oreq, 'status') == 'pending' then
        local ok, fields = pcall(cjson.decode, redis.call('HGET', oreq, 'req') or '')
        local at = ok and type(fields) == 'table' and tonumber(fields.requestedAt) or nil
        if at and at <= now and now < at + window and (start == nil or at < tonumber(start)) then
          start = string.format('%d', at)
        end
      end
    end
  end
  if not start then return '!' end
end
local digest = ARGV[3] .. '@' .. start
local set = base .. 'dg:set:' .. digest
redis.call('SADD', set, id)
redis.call('PEXPIRE', set, ARGV[6])
redis.call('ZADD', base .. 'dg:due', 'NX', tonumber(start) + window, digest)
redis.call('HSET', KEYS[1], 'dg', digest)
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

  /**
   * `"!"`: send the request on its own (it opened its group's window, or no window is open);
   * otherwise the id of the digest it joined. Runs are grouped by run, scheduled runs by schedule.
   */
  async join(record: ApprovalRecord, now: number, windowMs: number, ttlMs: number): Promise<string> {
    const base = this.#keys.base;
    const bySchedule = record.scheduleId !== null;
    const group = bySchedule ? `schedule:${record.scheduleId}` : `run:${record.runId}`;
    return (await this.#redis.eval(
      JOIN,
      2,
      this.#keys.request(record.id),
      bySchedule ? `${base}dg:win:${group}` : this.#keys.run(record.runId),
      base,
      record.id,
      group,
      Math.floor(now),
      Math.floor(windowMs),
      Math.max(1, Math.floor(ttlMs)),
      bySchedule ? "schedule" : "run",
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
