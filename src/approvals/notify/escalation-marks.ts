import type { Cluster, Redis } from "ioredis";
import type { ApprovalKeys } from "../store/index.js";

/**
 * Once per request: an escalation is claimed with a lease (SET NX PX) before it is sent, so two
 * sweepers never both send it, and marked `sent` after it went out (kept until the request could no
 * longer be pending). A claim whose send failed lapses after the lease and is tried again, as a
 * reminder's is. One key per request, under the approvals hash tag.
 */
export class EscalationMarks {
  readonly #redis: Redis | Cluster;
  readonly #keys: ApprovalKeys;

  constructor(redis: Redis | Cluster, keys: ApprovalKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /** The pending request ids, earliest deadline first, at most `limit`. */
  async pendingIds(limit: number): Promise<string[]> {
    return this.#redis.zrange(this.#keys.pending, 0, limit - 1);
  }

  /** True when this caller may send the escalation now (nobody sent it, nobody is sending it). */
  async claim(id: string, leaseMs: number): Promise<boolean> {
    return (await this.#redis.set(this.#keys.escalation(id), "claimed", "PX", leaseMs, "NX")) === "OK";
  }

  /** Records that the escalation went out; kept `keepMs` (past the request's deadline). */
  async markSent(id: string, keepMs: number): Promise<void> {
    await this.#redis.set(this.#keys.escalation(id), "sent", "PX", Math.max(1, keepMs));
  }
}
