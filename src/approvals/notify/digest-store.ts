import type { Cluster, Redis } from "ioredis";
import { luaScript } from "../../lua/index.js";
import type { ApprovalKeys, ApprovalRecord } from "../store/index.js";

/** Joins a request to its group's digest window (KEYS, ARGV and the reply in digestJoin-2.lua). */
const JOIN = luaScript(import.meta.url, "digestJoin-2.lua").lua;

/** Claims due digests: each moves to now + lease, so a failed send is tried again, not lost. */
const CLAIM_DUE = luaScript(import.meta.url, "digestClaimDue-1.lua").lua;

/** Removes sent members; an emptied digest leaves the due index. */
const REMOVE = luaScript(import.meta.url, "digestRemove-2.lua").lua;

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
