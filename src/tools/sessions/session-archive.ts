import type { Cluster, Redis } from "ioredis";
import { luaScript } from "../../lua/index.js";
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

/** The ioredis command {@link RECORD_LUA} is defined as on the connection. */
const RECORD = "echoSessionArchiveRecord";

/**
 * One run archived, atomically, in one script (see `record` for why not a MULTI). KEYS: the run's
 * value, the user's sorted set (one hash tag, one slot). ARGV: value, TTL seconds, startedAt, run
 * id, the oldest score kept ("(" + cutoff), the last rank to drop (-(maxRunsPerUser + 1)). Returns
 * the ids of the runs beyond the count, which the caller drops with their values.
 */
const RECORD_LUA = luaScript(import.meta.url, "sessionArchiveRecord-2.lua").lua;

type RecordCommand = (
  runKey: string,
  userKey: string,
  value: string,
  ttlSeconds: number,
  startedAt: number,
  runId: string,
  minScore: string,
  lastDroppedRank: number,
) => Promise<string[]>;

/**
 * Past runs' transcripts in Redis, per user: a sorted set of run ids by start time and one JSON
 * value per run, both under the user's hash tag (one cluster slot, so one script writes both). A run
 * is only ever read through its user's keys, so no call can reach another user's transcript by
 * guessing a run id. Bounded by count per user, entries per run, text per entry and retention.
 */
export class RedisSessionArchive implements SessionArchive {
  readonly #o: Required<RedisSessionArchiveOptions>;

  constructor(options: RedisSessionArchiveOptions) {
    this.#o = { maxRunsPerUser: 500, maxEntries: 400, maxEntryChars: 4000, ...options };
    if (typeof (options.redis as unknown as Record<string, unknown>)[RECORD] !== "function") {
      options.redis.defineCommand(RECORD, { numberOfKeys: 2, lua: RECORD_LUA });
    }
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
    // A script, not MULTI: ioredis builds each MULTI by copying every script defined on the
    // connection (BullMQ's and the journal's, dozens), which cost more than the archive's own work.
    // Newest maxRunsPerUser stay; the rank range names the older ones, dropped with their values.
    const record = (this.#o.redis as unknown as Record<typeof RECORD, RecordCommand>)[RECORD];
    const dropped = await record.call(
      this.#o.redis,
      this.#runKey(summary.userId, summary.runId),
      userKey,
      value,
      ttlSeconds,
      summary.startedAt,
      summary.runId,
      `(${now - this.#o.retentionMs}`,
      -(this.#o.maxRunsPerUser + 1),
    );
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
