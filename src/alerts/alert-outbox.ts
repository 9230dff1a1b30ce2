import type { Cluster, Redis } from "ioredis";
import { type Clock, sha256Hex, systemClock } from "../shared/index.js";
import { Alert, alertGroup } from "./alert.js";

/** Options for {@link AlertOutbox}. */
export interface AlertOutboxOptions {
  redis: Redis | Cluster;
  /** `redis.key_prefix`; the outbox's keys are `<prefix>:{alerts}:…` (one hash slot). */
  keyPrefix: string;
  /** How long the first alert of a quiet group waits for others to join it, ms. */
  gatherMs: number;
  /** After a group's message, how long its next one waits at least, ms (the storm's digest). */
  windowMs: number;
  /** How long an alert id is remembered, so a second report of it is dropped, ms. Default 7 days. */
  seenMs?: number;
  clock?: Clock;
}

/** A group's alerts taken for sending: the same batch again until every target has it. */
export interface AlertBatch {
  /** The group's key (a hash of its name). */
  gid: string;
  alerts: Alert[];
  /** Targets that already have this batch (a crash in between re-sends only the rest). */
  delivered: Set<string>;
}

/**
 * The durable outbox of alerts: what a worker reports is stored before anything is sent, and leaves
 * only when every target has it, so a crash loses nothing. Per group (a schedule, else an agent):
 * `items:<gid>` (hash alert id → alert, so a second report is one alert), `due` (sorted set gid →
 * when its next message may go), `last` (gid → when the last one went), and while sending `batch:<gid>`
 * (the items, moved there in one RENAMENX) with `done:<gid>` (targets that have it). Plain
 * commands and MULTI only: every step is safe to repeat, so there is no script to keep in one slot.
 * Who sends a group is decided by a send lease (the sender's).
 */
export class AlertOutbox {
  readonly #redis: Redis | Cluster;
  readonly #base: string;
  readonly #gatherMs: number;
  readonly #windowMs: number;
  readonly #seenMs: number;
  readonly #clock: Clock;

  constructor(options: AlertOutboxOptions) {
    this.#redis = options.redis;
    this.#base = `${options.keyPrefix}:{alerts}`;
    this.#gatherMs = options.gatherMs;
    this.#windowMs = options.windowMs;
    this.#seenMs = options.seenMs ?? 7 * 86_400_000;
    this.#clock = options.clock ?? systemClock;
  }

  /** The key of a group's name. */
  static gid(group: string): string {
    return sha256Hex(group).slice(0, 32);
  }

  #key(part: string): string {
    return `${this.#base}:${part}`;
  }

  /**
   * Stores an alert, unless its id was reported before (false then). Its group becomes due after
   * the gather time, or at the end of the window since its last message, whichever is later; a
   * group already due keeps its time, so a storm joins one message.
   */
  async add(input: Alert): Promise<boolean> {
    const alert = Alert.parse(input);
    const seen = this.#key(`seen:${sha256Hex(alert.id).slice(0, 32)}`);
    if ((await this.#redis.exists(seen)) === 1) return false;
    const gid = AlertOutbox.gid(alertGroup(alert));
    const now = Math.floor(this.#clock.now());
    const last = Number((await this.#redis.hget(this.#key("last"), gid)) ?? "0");
    const dueAt = Math.max(now + this.#gatherMs, last > 0 ? last + this.#windowMs : 0);
    // Stored and made due in one transaction; HSETNX makes a racing second report the same alert.
    await this.#redis
      .multi()
      .hsetnx(this.#key(`items:${gid}`), alert.id, JSON.stringify(alert))
      .zadd(this.#key("due"), "NX", dueAt, gid)
      .set(seen, "1", "PX", this.#seenMs)
      .exec();
    return true;
  }

  /** Groups whose message may go now (at most `limit`). */
  async dueGroups(limit = 20): Promise<string[]> {
    const now = Math.floor(this.#clock.now());
    return this.#redis.zrangebyscore(this.#key("due"), "-inf", now, "LIMIT", 0, limit);
  }

  /**
   * Takes a due group's alerts to send (call it holding the group's send lease): the batch an
   * earlier sender left unfinished, else everything stored for the group now. Null when there is
   * nothing: the group leaves `due` (and comes back at once if an alert arrived meanwhile).
   */
  async take(gid: string): Promise<AlertBatch | null> {
    const items = this.#key(`items:${gid}`);
    const batch = this.#key(`batch:${gid}`);
    if ((await this.#redis.exists(batch)) === 0) {
      // Atomic: alerts added from here on go to a new items hash, the next message. No items
      // hash is "no such key", the same as nothing to send.
      await this.#redis.renamenx(items, batch).catch(() => 0);
    }
    const [stored, done] = await Promise.all([
      this.#redis.hvals(batch),
      this.#redis.smembers(this.#key(`done:${gid}`)),
    ]);
    if (stored.length === 0) {
      await this.#redis.zrem(this.#key("due"), gid);
      // An alert stored between the look and the ZREM made the group due itself or is seen here.
      if ((await this.#redis.exists(items)) === 1) {
        await this.#redis.zadd(this.#key("due"), "NX", Math.floor(this.#clock.now()), gid);
      }
      return null;
    }
    const alerts = stored
      .map((text) => Alert.safeParse(safeJson(text)))
      .flatMap((r) => (r.success ? [r.data] : []))
      .sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
    return { gid, alerts, delivered: new Set(done) };
  }

  /** Records that `target` has the batch (a re-send after a crash skips it). */
  async delivered(gid: string, target: string): Promise<void> {
    await this.#redis.sadd(this.#key(`done:${gid}`), target);
  }

  /**
   * Every target has the batch: it is gone, and the group's next message waits out the window
   * (alerts arriving meanwhile become its digest).
   */
  async finish(gid: string): Promise<void> {
    const now = Math.floor(this.#clock.now());
    await this.#redis
      .multi()
      .del(this.#key(`batch:${gid}`), this.#key(`done:${gid}`))
      .hset(this.#key("last"), gid, now)
      .zadd(this.#key("due"), now + this.#windowMs, gid)
      .exec();
  }

  /** A target failed: the batch stays, and the group is tried again after `retryMs`. */
  async retryLater(gid: string, retryMs: number): Promise<void> {
    await this.#redis.zadd(this.#key("due"), "XX", Math.floor(this.#clock.now()) + retryMs, gid);
  }

  /**
   * Counts a schedule's failed run and answers the streak (consecutive failures); a run that ends
   * well resets it ({@link resetStreak}).
   */
  async countFailure(scheduleId: string): Promise<number> {
    return this.#redis.incr(this.#key(`streak:${AlertOutbox.gid(scheduleId)}`));
  }

  /** A schedule's run ended well: its failure streak starts again at 0. */
  async resetStreak(scheduleId: string): Promise<void> {
    await this.#redis.del(this.#key(`streak:${AlertOutbox.gid(scheduleId)}`));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
