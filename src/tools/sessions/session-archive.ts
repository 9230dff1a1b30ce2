import type { Cluster, Redis } from "ioredis";
import type { SessionArchive, SessionSummary, TranscriptEntry } from "./session-search.js";

/** Options of {@link RedisSessionArchive}. */
export interface RedisSessionArchiveOptions {
  readonly redis: Redis | Cluster;
  readonly keyPrefix: string;
  /** How long an archived run is kept, ms (the worker passes `retention.journal_days`). */
  readonly retentionMs: number;
  /** Most runs kept per user; the oldest are dropped first. Default 500. */
  readonly maxRunsPerUser?: number;
  /** Most entries kept per transcript (the first and the last are kept, the middle dropped). Default 400. */
  readonly maxEntries?: number;
  /** Longest text kept per entry, characters. Default 4,000. */
  readonly maxEntryChars?: number;
}

/** What the worker archives when a run ends. */
export interface ArchivedRun {
  readonly summary: SessionSummary;
  readonly entries: readonly TranscriptEntry[];
}

const ROLES = new Set(["user", "assistant", "tool"]);

/**
 * Past runs' transcripts in Redis, per user: a sorted set of run ids by start time and one JSON
 * value per run, both under the user's hash tag (one cluster slot, so one MULTI writes both). A run
 * is only ever read through its user's keys, so no call can reach another user's transcript by
 * guessing a run id. Bounded by count per user, entries per run, text per entry and retention.
 */
export class RedisSessionArchive implements SessionArchive {
  readonly #o: Required<RedisSessionArchiveOptions>;

  constructor(options: RedisSessionArchiveOptions) {
    this.#o = { maxRunsPerUser: 500, maxEntries: 400, maxEntryChars: 4000, ...options };
  }

  #userKey(userId: string): string {
    return `${this.#o.keyPrefix}:sessions:{user:${encodeURIComponent(userId)}}`;
  }

  #runKey(userId: string, runId: string): string {
    return `${this.#userKey(userId)}:run:${encodeURIComponent(runId)}`;
  }

  /**
   * Archives a finished run (idempotent: a second call for the same run overwrites it with the same
   * transcript), drops the user's runs beyond the count and those past retention.
   */
  async record(run: ArchivedRun, now: number): Promise<void> {
    const { summary } = run;
    const userKey = this.#userKey(summary.userId);
    const ttlSeconds = Math.max(1, Math.ceil(this.#o.retentionMs / 1000));
    const value = JSON.stringify({ summary, entries: this.#bounded(run.entries) });
    const tx = this.#o.redis.multi();
    tx.set(this.#runKey(summary.userId, summary.runId), value, "EX", ttlSeconds);
    tx.zadd(userKey, summary.startedAt, summary.runId);
    tx.zremrangebyscore(userKey, "-inf", `(${now - this.#o.retentionMs}`);
    // Newest maxRunsPerUser stay; the rank range below names the older ones, dropped with their values.
    tx.zrange(userKey, 0, -(this.#o.maxRunsPerUser + 1));
    tx.expire(userKey, ttlSeconds);
    const replies = (await tx.exec()) ?? [];
    const dropped = (replies[3]?.[1] as string[] | undefined) ?? [];
    if (dropped.length > 0) {
      const cleanup = this.#o.redis.multi();
      cleanup.zrem(userKey, ...dropped);
      cleanup.del(...dropped.map((id) => this.#runKey(summary.userId, id)));
      await cleanup.exec();
    }
  }

  async runsVisibleTo(userId: string, limit: number): Promise<readonly SessionSummary[]> {
    const ids = await this.#o.redis.zrevrange(this.#userKey(userId), 0, Math.max(0, limit - 1));
    if (ids.length === 0) return [];
    const values = await this.#o.redis.mget(...ids.map((id) => this.#runKey(userId, id)));
    const runs: SessionSummary[] = [];
    for (const raw of values) {
      const parsed = parseRun(raw);
      // A value written under this user's key names this user; anything else is not shown.
      if (parsed && parsed.summary.userId === userId) runs.push(parsed.summary);
    }
    return runs;
  }

  async transcript(userId: string, runId: string): Promise<readonly TranscriptEntry[]> {
    const parsed = parseRun(await this.#o.redis.get(this.#runKey(userId, runId)));
    return parsed && parsed.summary.userId === userId ? parsed.entries : [];
  }

  #bounded(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
    const { maxEntries, maxEntryChars } = this.#o;
    const cut = (e: TranscriptEntry): TranscriptEntry => ({
      role: e.role,
      text: e.text.length > maxEntryChars ? `${e.text.slice(0, maxEntryChars)} …[cut]` : e.text,
      ...(e.tool ? { tool: e.tool } : {}),
    });
    const kept = entries.filter((e) => e.text.trim() !== "");
    if (kept.length <= maxEntries) return kept.map(cut);
    // The task and the final answer matter most: keep both ends.
    const head = Math.ceil(maxEntries / 2);
    return [...kept.slice(0, head), ...kept.slice(kept.length - (maxEntries - head))].map(cut);
  }
}

function parseRun(raw: string | null): ArchivedRun | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as ArchivedRun;
    const s = value?.summary;
    if (
      !s ||
      typeof s.runId !== "string" ||
      typeof s.userId !== "string" ||
      typeof s.agentId !== "string" ||
      typeof s.startedAt !== "number" ||
      !Array.isArray(value.entries)
    ) {
      return undefined;
    }
    const entries = value.entries.filter(
      (e): e is TranscriptEntry => ROLES.has(e?.role) && typeof e?.text === "string",
    );
    return { summary: s, entries };
  } catch {
    return undefined;
  }
}
