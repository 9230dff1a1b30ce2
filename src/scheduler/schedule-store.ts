import type { Cluster, Redis } from "ioredis";
import { isRunnerError, RunnerError } from "../shared/index.js";
import { DEFAULT_SCHEDULER_PREFIX, SchedulerKeys } from "./keys.js";
import { decodeRecord, Grant, HistoryEntry, StoredSchedule } from "./records.js";
import { SCHEDULER_SCRIPTS, type SchedulerScriptName } from "./store-scripts.js";

/** History entries kept per schedule. */
export const HISTORY_MAX = 500;
/** Most decoded schedules {@link ScheduleStore.readMany} keeps (then it starts afresh). */
const DECODED_CACHE_MAX = 100_000;
/** Finished run ids remembered per schedule (see the FINISH script). */
const FINISHED_CAP = 200;

type ScriptRunner = (...args: (string | number)[]) => Promise<unknown>;

/**
 * A stored schedule that cannot be read (not JSON, or not the schema): listed by id with what is
 * wrong, so one damaged record neither hides the others nor stops them firing. It never fires.
 */
export interface DamagedSchedule {
  readonly id: string;
  /** The code decoding it raised: SCHEDULE_INVALID. */
  readonly code: string;
  readonly message: string;
}

/** The schedules a read could decode, and the damaged ones, neither hiding the other. */
export interface ScheduleListing {
  schedules: StoredSchedule[];
  damaged: DamagedSchedule[];
}

/**
 * The damaged entry of schedule `id` (stored in hash `defs`) when decoding it failed; any other error
 * is thrown on.
 */
function damagedOrThrow(id: string, defs: string, err: unknown): DamagedSchedule {
  if (!isRunnerError(err, "SCHEDULE_INVALID")) throw err;
  return {
    id,
    code: err.code,
    message: `${err.message}; it does not fire and is left as stored: inspect field ${JSON.stringify(id)} of ${defs} in Redis, delete it (HDEL) and create the schedule again`,
  };
}

/** Outcome of a tick whose claim this process holds. */
export const TICK_OUTCOMES = ["fired", "caught-up", "skipped-overlap", "queued"] as const;
export type TickOutcome = (typeof TICK_OUTCOMES)[number];

/** A tick claim as stored under `sched:<id>:<instant>`. */
export interface TickClaim {
  owner: string;
  state: "claimed" | TickOutcome;
  at: number;
}

/** One claimed tick's outcome, for {@link ScheduleStore.finalizeTicks}. */
export interface FinalizeInput {
  id: string;
  tick: number;
  owner: string;
  outcome: TickOutcome;
  runId: string;
  entry: HistoryEntry;
  claimTtlMs: number;
}

/** ok | done (someone recorded it) | lost (the claim expired or is another's) | gone (deleted). */
export type FinalizeReply = "ok" | "done" | "lost" | "gone";

/** What {@link ScheduleStore.save} writes next to the schedule. */
export interface SaveOptions {
  /** Revision the caller read; 0 to create. */
  expectedRev: number;
  /** New watermark; omitted = unchanged. */
  through?: number;
  /** The next tick; null = not due (paused). */
  nextTick: number | null;
  /** Grant change: undefined = keep, null = delete, a grant = set. */
  grant?: Grant | null;
  history?: HistoryEntry[];
}

/**
 * Redis storage of schedules, their state, grants, tick claims and history. Every multi-key change
 * is one Lua script under the `{sched}` hash tag; reads are plain commands.
 */
export class ScheduleStore {
  readonly keys: SchedulerKeys;
  readonly redis: Redis | Cluster;
  /** Decoded schedules by id, with the stored text they came from (see {@link readMany}). */
  readonly #decoded = new Map<string, { raw: string; stored: StoredSchedule }>();

  constructor(options: { redis: Redis | Cluster; keyPrefix?: string }) {
    this.keys = new SchedulerKeys(options.keyPrefix ?? DEFAULT_SCHEDULER_PREFIX);
    this.redis = options.redis;
    for (const [name, script] of Object.entries(SCHEDULER_SCRIPTS)) {
      if (typeof (this.redis as unknown as Record<string, unknown>)[name] !== "function") {
        this.redis.defineCommand(name, {
          ...(script.keys === null ? {} : { numberOfKeys: script.keys }),
          lua: script.lua,
        });
      }
    }
  }

  /** Runs one of {@link SCHEDULER_SCRIPTS}. */
  script(name: SchedulerScriptName, ...args: (string | number)[]): Promise<unknown> {
    return ((this.redis as unknown as Record<string, ScriptRunner>)[name] as ScriptRunner).call(
      this.redis,
      ...args,
    );
  }

  async get(id: string): Promise<StoredSchedule | null> {
    const raw = await this.redis.hget(this.keys.defs, id);
    return raw === null ? null : decodeRecord(StoredSchedule, raw, `schedule ${id}`);
  }

  /**
   * Many schedules in one HMGET: `found[i]` is the schedule of `ids[i]`, null when there is none or
   * it cannot be read; each that cannot be read is in `damaged` (one damaged schedule never stops
   * the others firing). The firing loop reads every due schedule on every pass, so decoded records
   * are kept by their exact stored text: an unchanged record is not parsed and validated again (a
   * changed one has a new text, `rev` at least).
   */
  async readMany(
    ids: readonly string[],
  ): Promise<{ found: (StoredSchedule | null)[]; damaged: DamagedSchedule[] }> {
    const damaged: DamagedSchedule[] = [];
    if (ids.length === 0) return { found: [], damaged };
    const raws = await this.redis.hmget(this.keys.defs, ...ids);
    const found = raws.map((raw, i) => {
      if (raw === null) return null;
      const id = ids[i]!;
      const cached = this.#decoded.get(id);
      if (cached?.raw === raw) return cached.stored;
      let stored: StoredSchedule;
      try {
        stored = Object.freeze(decodeRecord(StoredSchedule, raw, `schedule ${id}`));
      } catch (err) {
        damaged.push(damagedOrThrow(id, this.keys.defs, err));
        return null;
      }
      if (this.#decoded.size >= DECODED_CACHE_MAX) this.#decoded.clear();
      this.#decoded.set(id, { raw, stored });
      return stored;
    });
    return { found, damaged };
  }

  /** Every schedule by id, and every one that cannot be read: one damaged record stops no list. */
  async listWithDamaged(): Promise<ScheduleListing> {
    const all = await this.redis.hgetall(this.keys.defs);
    const listing: ScheduleListing = { schedules: [], damaged: [] };
    for (const [id, raw] of Object.entries(all)) {
      try {
        listing.schedules.push(decodeRecord(StoredSchedule, raw, `schedule ${id}`));
      } catch (err) {
        listing.damaged.push(damagedOrThrow(id, this.keys.defs, err));
      }
    }
    listing.schedules.sort((a, b) => a.schedule.id.localeCompare(b.schedule.id));
    listing.damaged.sort((a, b) => a.id.localeCompare(b.id));
    return listing;
  }

  /** Writes a schedule (compare-and-set on its revision). Throws SCHEDULE_INVALID on a conflict. */
  async save(stored: StoredSchedule, options: SaveOptions): Promise<void> {
    const id = stored.schedule.id;
    const k = this.keys;
    const grant =
      options.grant === undefined ? "" : options.grant === null ? "-" : JSON.stringify(options.grant);
    const reply = await this.script(
      "schedSave",
      k.defs,
      k.through,
      k.due,
      k.grants,
      k.history(id),
      id,
      JSON.stringify(stored),
      options.expectedRev,
      options.through ?? "",
      options.nextTick ?? "",
      grant,
      HISTORY_MAX,
      ...(options.history ?? []).map((entry) => JSON.stringify(entry)),
    );
    if (reply === "ok") return;
    const why =
      reply === "exists"
        ? `a schedule with id "${id}" already exists`
        : reply === "missing"
          ? `schedule "${id}" does not exist`
          : `schedule "${id}" was changed concurrently; read it again and retry`;
    throw new RunnerError("SCHEDULE_INVALID", why, { data: { field: "id", value: id, reply } });
  }

  /** Deletes a schedule and its state, grant, queue and history. Returns false if it did not exist. */
  async delete(id: string): Promise<boolean> {
    const k = this.keys;
    const reply = await this.script(
      "schedDelete",
      k.defs,
      k.through,
      k.due,
      k.grants,
      k.queuedIndex,
      k.active(id),
      k.finished(id),
      k.queued(id),
      k.history(id),
      id,
    );
    return reply === 1;
  }

  async through(id: string): Promise<number | null> {
    const raw = await this.redis.hget(this.keys.through, id);
    return raw === null ? null : Number(raw);
  }

  async throughMany(ids: readonly string[]): Promise<(number | null)[]> {
    if (ids.length === 0) return [];
    return (await this.redis.hmget(this.keys.through, ...ids)).map((raw) =>
      raw === null ? null : Number(raw),
    );
  }

  /** The next tick of a schedule, null when it is not due (paused or deleted). */
  async nextTick(id: string): Promise<number | null> {
    const raw = await this.redis.zscore(this.keys.due, id);
    return raw === null ? null : Number(raw);
  }

  /** Schedules whose next tick is at or before `now`, earliest first. */
  async due(now: number, limit: number): Promise<{ id: string; tick: number }[]> {
    const flat = await this.redis.zrangebyscore(this.keys.due, "-inf", now, "WITHSCORES", "LIMIT", 0, limit);
    const out: { id: string; tick: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ id: flat[i]!, tick: Number(flat[i + 1]) });
    return out;
  }

  /** Ids of the schedules whose next tick is after `after` and at or before `until`. */
  async dueBetween(after: number, until: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.due, `(${after}`, until, "LIMIT", 0, limit);
  }

  /** Raises the watermark and sets the next tick if the schedule is still at `rev`. */
  async advance(id: string, rev: number, through: number, nextTick: number, history: HistoryEntry[] = []) {
    const k = this.keys;
    const reply = await this.script(
      "schedAdvance",
      k.defs,
      k.through,
      k.due,
      k.history(id),
      id,
      rev,
      through,
      nextTick,
      HISTORY_MAX,
      ...history.map((entry) => JSON.stringify(entry)),
    );
    return reply === "ok";
  }

  async getGrant(id: string): Promise<Grant | null> {
    const raw = await this.redis.hget(this.keys.grants, id);
    return raw === null ? null : decodeRecord(Grant, raw, `grant of ${id}`);
  }

  async setGrant(id: string, grant: Grant, history: HistoryEntry[] = []): Promise<void> {
    await this.redis.hset(this.keys.grants, id, JSON.stringify(grant));
    await this.appendHistory(id, history);
  }

  async appendHistory(id: string, entries: HistoryEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.script(
      "schedAppend",
      this.keys.history(id),
      HISTORY_MAX,
      ...entries.map((e) => JSON.stringify(e)),
    );
  }

  /** Newest first. */
  async history(id: string, limit = 50): Promise<HistoryEntry[]> {
    const raws = await this.redis.lrange(this.keys.history(id), 0, Math.max(0, limit - 1));
    return raws.map((raw) => decodeRecord(HistoryEntry, raw, `history entry of ${id}`));
  }

  /**
   * Claims a tick: SET NX with a lease. Returns null when this call claimed it, else the existing
   * claim (someone else is firing it, or it was already dealt with).
   */
  async claimTick(
    id: string,
    tick: number,
    owner: string,
    leaseMs: number,
    now: number,
  ): Promise<TickClaim | null> {
    const key = this.keys.claim(id, tick);
    const claim: TickClaim = { owner, state: "claimed", at: now };
    const ok = await this.redis.set(key, JSON.stringify(claim), "PX", leaseMs, "NX");
    if (ok === "OK") return null;
    const raw = await this.redis.get(key);
    // Expired between SET and GET: report it as someone else's so this pass leaves it alone.
    if (raw === null) return { owner: "", state: "claimed", at: now };
    return JSON.parse(raw) as TickClaim;
  }

  /**
   * Claims many ticks in one round trip (see {@link claimTick}): per tick, null when this call
   * claimed it, else the existing claim.
   */
  async claimTicks(
    ticks: readonly { id: string; tick: number }[],
    owner: string,
    leaseMs: number,
    now: number,
  ): Promise<(TickClaim | null)[]> {
    if (ticks.length === 0) return [];
    const claim: TickClaim = { owner, state: "claimed", at: now };
    const keys = ticks.map(({ id, tick }) => this.keys.claim(id, tick));
    const replies = (await this.script(
      "schedClaimMany",
      keys.length,
      ...keys,
      JSON.stringify(claim),
      leaseMs,
    )) as string[];
    return replies.map((raw) => (raw === "" ? null : (JSON.parse(raw) as TickClaim)));
  }

  /** Records a claimed tick's outcome once (see the FINALIZE script). */
  async finalizeTick(input: FinalizeInput): Promise<FinalizeReply> {
    return (await this.finalizeTicks([input]))[0]!;
  }

  /** {@link finalizeTick} for many ticks, pipelined (each one its own atomic script). */
  async finalizeTicks(inputs: readonly FinalizeInput[]): Promise<FinalizeReply[]> {
    if (inputs.length === 0) return [];
    const pipeline = this.redis.pipeline() as unknown as Record<string, (...args: unknown[]) => unknown> & {
      exec(): Promise<[Error | null, unknown][] | null>;
    };
    for (const input of inputs) pipeline.schedFinalize!(...this.#finalizeArgs(input));
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([err, reply]) => {
      if (err) throw err;
      return reply as FinalizeReply;
    });
  }

  /**
   * Per schedule: how many runs are active and how many ticks wait (overlap `queue`), pipelined;
   * null for a schedule whose counts could not be read (the caller looks at it on its own).
   */
  async runCounts(ids: readonly string[]): Promise<({ active: number; queued: number } | null)[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hlen(this.keys.active(id)).llen(this.keys.queued(id));
    const replies = (await pipeline.exec()) ?? [];
    return ids.map((_, i) => {
      const active = replies[2 * i];
      const queued = replies[2 * i + 1];
      if (!active || !queued || active[0] || queued[0]) return null;
      return { active: Number(active[1]), queued: Number(queued[1]) };
    });
  }

  #finalizeArgs(input: FinalizeInput): (string | number)[] {
    const k = this.keys;
    return [
      k.claim(input.id, input.tick),
      k.defs,
      k.through,
      k.active(input.id),
      k.queued(input.id),
      k.queuedIndex,
      k.finished(input.id),
      k.history(input.id),
      input.owner,
      input.outcome,
      input.tick,
      input.runId,
      JSON.stringify(input.entry),
      input.claimTtlMs,
      HISTORY_MAX,
      input.id,
    ];
  }

  /** Run id → tick of the runs of a schedule that are enqueued and not known to be finished. */
  async activeRuns(id: string): Promise<Map<string, number>> {
    const all = await this.redis.hgetall(this.keys.active(id));
    return new Map(Object.entries(all).map(([runId, tick]) => [runId, Number(tick)]));
  }

  /** Marks a run of a schedule finished (idempotent). Returns false when it was already. */
  async finishRun(id: string, runId: string, now: number, entry: HistoryEntry): Promise<boolean> {
    const k = this.keys;
    const reply = await this.script(
      "schedFinish",
      k.active(id),
      k.finished(id),
      k.history(id),
      runId,
      now,
      JSON.stringify(entry),
      HISTORY_MAX,
      FINISHED_CAP,
    );
    return reply === 1;
  }

  /** Marks a run active (run-now). */
  async addActive(id: string, runId: string, tick: number): Promise<void> {
    await this.redis.hset(this.keys.active(id), runId, String(tick));
  }

  async queuedTicks(id: string): Promise<number[]> {
    return (await this.redis.lrange(this.keys.queued(id), 0, -1)).map(Number);
  }

  async schedulesWithQueuedTicks(): Promise<string[]> {
    return this.redis.smembers(this.keys.queuedIndex);
  }

  /** Moves the oldest queued tick to the active runs once (see the RELEASE script). */
  async releaseQueued(id: string, tick: number, runId: string, entry: HistoryEntry): Promise<boolean> {
    const k = this.keys;
    const reply = await this.script(
      "schedRelease",
      k.queued(id),
      k.active(id),
      k.finished(id),
      k.queuedIndex,
      k.history(id),
      String(tick),
      runId,
      JSON.stringify(entry),
      HISTORY_MAX,
      id,
    );
    return reply === "ok";
  }
}
