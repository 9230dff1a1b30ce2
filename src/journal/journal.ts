import type { Cluster, Redis } from "ioredis";
import { type Clock, canonicalJson, RunnerError } from "../shared/index.js";
import { JOURNAL_SCRIPTS, type JournalScriptName } from "./journal-scripts.js";
import { assertId, assertKeyPrefix, assertPositiveMs, journalKey } from "./keys.js";
import {
  type CompletedRecord,
  corrupt,
  decodeState,
  type JournalRecord,
  type StartedRecord,
  toRecord,
} from "./records.js";

/** Default journal retention: 7 days. */
export const DEFAULT_JOURNAL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Default key prefix. */
export const DEFAULT_JOURNAL_PREFIX = "echo";

/** Options for {@link Journal}. */
export interface JournalOptions {
  /** A connected ioredis client or cluster. The journal defines its Lua commands on it. */
  redis: Redis | Cluster;
  /** Key prefix (no braces, no trailing colon). Default {@link DEFAULT_JOURNAL_PREFIX}. */
  keyPrefix?: string;
  /** How long a run's journal is kept after its last write, ms. Default {@link DEFAULT_JOURNAL_RETENTION_MS}. */
  retentionMs?: number;
  /**
   * Time source for claim and lease times. Default: the Redis server's TIME, read inside each script,
   * so workers on machines with skewed clocks agree on when a lease lapses. Tests inject a
   * ManualClock to move time without sleeping.
   */
  clock?: Clock;
}

/** Identifies one claim: a run, an idempotency key and the claimant. */
export interface ClaimInput {
  runId: string;
  /** Idempotency key: `ctx.idempotencyKey` of a tool call, or `modelStepKey(step)`. */
  key: string;
  /** Claimant id, unique per worker attempt (a restarted process must use a new one). */
  owner: string;
  /** How long the claim stays live without renewal, ms. Must be shorter than the retention. */
  leaseMs: number;
  /** Keys of this run whose outbox entries were delivered: their fields are deleted in the same round trip. */
  acknowledge?: readonly string[];
  /** As {@link acknowledge}, for entries stored with a claim ({@link ClaimInput.outbox}). */
  acknowledgeClaims?: readonly string[];
  /**
   * What must be delivered elsewhere once the key is claimed (the gate decision that lets the call
   * run): stored in the same write as the claim, only when this call takes it (never over an
   * earlier claim's), kept until a later call acknowledges it ({@link JournalSnapshot.claimOutbox}).
   */
  outbox?: string;
}

/** Input of {@link Journal.reclaim}: a claim plus the attempt the caller judged to be in doubt. */
export interface ReclaimInput extends Omit<ClaimInput, "outbox" | "acknowledge" | "acknowledgeClaims"> {
  /** `record.attempt` of the in-doubt record the caller decided to re-run. */
  attempt: number;
}

/** Input of {@link Journal.complete}. */
export interface CompleteInput {
  runId: string;
  key: string;
  owner: string;
  /** The result to record: any JSON value (stored as canonical JSON, returned as parsed JSON). */
  result: unknown;
  /**
   * What must be delivered elsewhere once the result is recorded (the run's outbox, see
   * {@link JournalSnapshot.outbox}): stored in the same write as the result, kept until a later
   * call acknowledges the key.
   */
  outbox?: string;
  /** As {@link ClaimInput.acknowledge}. */
  acknowledge?: readonly string[];
  /** As {@link ClaimInput.acknowledgeClaims}. */
  acknowledgeClaims?: readonly string[];
}

/** Input of {@link Journal.completeThenClaim}: a claim, and the result of another key the same owner holds. */
export interface CompleteThenClaimInput extends ClaimInput {
  /**
   * The key to record first (held by `owner` in the same run) and its result. `resultJson`, when
   * the caller has encoded the result already (see {@link encodeJournalResult}), is stored as is
   * and `result` must then be its parsed form: the completed record holds it without a new parse.
   */
  complete: { key: string; result: unknown; resultJson?: string; outbox?: string };
}

/** What a claim found. Only `claimed` allows the caller to perform the side effect. */
export type ClaimOutcome =
  | { state: "claimed"; record: StartedRecord }
  | { state: "completed"; record: CompletedRecord }
  | { state: "held"; owner: string; until: number; record: StartedRecord }
  | { state: "in_doubt"; record: StartedRecord };

/** What {@link Journal.complete} did. */
export interface CompleteOutcome {
  record: CompletedRecord;
  /** True when this owner had already completed the key (a retried complete); the first result stays. */
  alreadyCompleted: boolean;
}

/** A whole journal of a run, read in one round trip. */
export interface JournalSnapshot {
  runId: string;
  /** The time of the read on the journal's time source, ms. */
  now: number;
  /** Every entry by idempotency key. */
  records: ReadonlyMap<string, JournalRecord>;
  /**
   * Outbox entries stored with a result and not acknowledged yet, by key: a worker that died
   * before delivering them left them here, and whoever resumes the run delivers them (at most once:
   * the receiver recognises an entry it already has).
   */
  outbox: ReadonlyMap<string, string>;
  /** Outbox entries stored with a claim and not acknowledged yet, by key (delivered as {@link outbox}). */
  claimOutbox: ReadonlyMap<string, string>;
}

type ScriptReply = [outcome: string, state: string, extra: string, now: string];

/** A result as the journal stores it (canonical JSON) and replays it (that JSON, parsed). */
export interface EncodedJournalResult {
  readonly json: string;
  readonly value: unknown;
}

/** Encodes a result as {@link Journal.complete} would, or JOURNAL_INPUT_INVALID naming the key. */
export function encodeJournalResult(runId: string, key: string, result: unknown): EncodedJournalResult {
  const json = resultText(runId, key, result);
  return { json, value: JSON.parse(json) as unknown };
}

/** The canonical JSON of a result to journal, or JOURNAL_INPUT_INVALID naming the key. */
function resultText(runId: string, key: string, result: unknown): string {
  try {
    return canonicalJson(result === undefined ? null : result);
  } catch (cause) {
    throw new RunnerError(
      "JOURNAL_INPUT_INVALID",
      `The result for key "${key}" cannot be journalled: ${(cause as Error).message}`,
      { data: { runId, key }, cause },
    );
  }
}
type ScriptFn = (key: string, ...argv: string[]) => Promise<unknown>;

/** The outbox fields of an acknowledgement, checked: `o:<key>` for results', `c:<key>` for claims' entries. */
function acknowledged(input: {
  acknowledge?: readonly string[] | undefined;
  acknowledgeClaims?: readonly string[] | undefined;
}): string[] {
  const fields: string[] = [];
  for (const key of input.acknowledge ?? []) {
    assertId("acknowledged key", key);
    fields.push(`o:${key}`);
  }
  for (const key of input.acknowledgeClaims ?? []) {
    assertId("acknowledged key", key);
    fields.push(`c:${key}`);
  }
  return fields;
}

/**
 * The idempotency ledger of agent runs (docs/DESIGN.md §7; reasoning in ARCHITECTURE.md): `started` is
 * an atomic claim with an owner and a lease taken before a side effect, `completed` records the
 * result after it. One hash per run, one Lua script per operation.
 */
export class Journal {
  readonly keyPrefix: string;
  readonly retentionMs: number;
  readonly #redis: Redis | Cluster;
  readonly #clock: Clock | undefined;

  constructor(options: JournalOptions) {
    const prefix = options.keyPrefix ?? DEFAULT_JOURNAL_PREFIX;
    assertKeyPrefix(prefix);
    const retentionMs = options.retentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
    assertPositiveMs("journal retention", retentionMs);
    this.keyPrefix = prefix;
    this.retentionMs = retentionMs;
    this.#redis = options.redis;
    this.#clock = options.clock;
    for (const [name, { lua, numberOfKeys }] of Object.entries(JOURNAL_SCRIPTS)) {
      if (typeof (this.#redis as unknown as Record<string, unknown>)[name] !== "function") {
        this.#redis.defineCommand(name, { numberOfKeys, lua });
      }
    }
  }

  /** The Redis key of a run's journal (for operators and tests). */
  keyOf(runId: string): string {
    assertId("run id", runId);
    return journalKey(this.keyPrefix, runId);
  }

  /**
   * Claims `key` before a side effect. `claimed` means the caller may perform it; `completed`
   * returns the recorded result; `held` means another live claim exists (the same owner included:
   * a claim is never re-entrant); `in_doubt` means a claim lapsed without a result — decide with
   * `resolveInDoubt`, then take it over with {@link reclaim} or park / fail.
   */
  async claim(input: ClaimInput): Promise<ClaimOutcome> {
    this.#checkClaim(input);
    const reply = await this.#run(
      "echoJournalClaim",
      input.runId,
      input.key,
      input.owner,
      input.leaseMs,
      input.outbox ?? "",
      ...acknowledged(input),
    );
    return this.#claimOutcome(input, reply);
  }

  /**
   * Takes over an in-doubt claim for `owner` (attempt + 1), only if it is still in doubt at the
   * attempt the caller judged; otherwise reports what is there now, as {@link claim} does.
   */
  async reclaim(input: ReclaimInput): Promise<ClaimOutcome> {
    this.#checkClaim(input);
    if (!Number.isSafeInteger(input.attempt) || input.attempt < 1) {
      throw new RunnerError(
        "JOURNAL_INPUT_INVALID",
        `attempt must be a whole number >= 1, got ${input.attempt}`,
      );
    }
    const reply = await this.#run(
      "echoJournalReclaim",
      input.runId,
      input.key,
      input.owner,
      input.leaseMs,
      String(input.attempt),
    );
    if (reply[0] === "absent") {
      throw new RunnerError(
        "JOURNAL_INPUT_INVALID",
        `Cannot take over key "${input.key}" of run "${input.runId}": it was never claimed (or the journal expired); use claim`,
        { data: { runId: input.runId, key: input.key } },
      );
    }
    return this.#claimOutcome(input, reply);
  }

  /**
   * Records the result of a claimed key. Refuses with JOURNAL_CLAIM_LOST unless `owner` holds the
   * claim (fencing: a worker whose claim was taken over must not record over the new owner).
   */
  async complete(input: CompleteInput): Promise<CompleteOutcome> {
    const { runId, key, owner } = input;
    assertId("run id", runId);
    assertId("idempotency key", key);
    assertId("owner", owner);
    const resultJson = resultText(runId, key, input.result);
    const reply = await this.#run(
      "echoJournalComplete",
      runId,
      key,
      owner,
      1,
      resultJson,
      input.outbox ?? "",
      ...acknowledged(input),
    );
    return this.#completeOutcome(runId, key, owner, resultJson, reply);
  }

  /**
   * Records the result of `complete.key` and then claims `key`, for the same run and owner, in one
   * atomic round trip (the agent loop ends a step and starts the next one). The completion is
   * fenced exactly as {@link complete} (JOURNAL_CLAIM_LOST, and then nothing is claimed); the claim
   * answers exactly as {@link claim}.
   */
  async completeThenClaim(
    input: CompleteThenClaimInput,
  ): Promise<{ completed: CompleteOutcome; claimed: ClaimOutcome }> {
    this.#checkClaim(input);
    const { runId, owner } = input;
    const done = input.complete.key;
    assertId("idempotency key", done);
    const preEncoded = input.complete.resultJson;
    const resultJson = preEncoded ?? resultText(runId, done, input.complete.result);
    const reply = (await this.#run(
      "echoJournalCompleteThenClaim",
      runId,
      input.key,
      owner,
      input.leaseMs,
      input.outbox ?? "",
      done,
      resultJson,
      input.complete.outbox ?? "",
      ...acknowledged(input),
    )) as unknown as string[];
    const completed = this.#completeOutcome(
      runId,
      done,
      owner,
      resultJson,
      reply.slice(0, 4) as ScriptReply,
      preEncoded === undefined ? undefined : { value: input.complete.result },
    );
    const claimReply = reply.slice(4) as ScriptReply;
    if (claimReply[0] === "corrupt") {
      decodeState(runId, input.key, claimReply[1]);
      throw corrupt(runId, input.key, claimReply[2]);
    }
    return { completed, claimed: this.#claimOutcome(input, claimReply) };
  }

  #completeOutcome(
    runId: string,
    key: string,
    owner: string,
    resultJson: string,
    reply: ScriptReply,
    /** The parsed form of `resultJson`, when the caller has it (no second parse). */
    parsed?: { value: unknown },
  ): CompleteOutcome {
    const [outcome, rawState, extra] = reply;
    switch (outcome) {
      case "completed": {
        if (parsed === undefined) {
          return { record: this.#completed(runId, key, rawState, resultJson), alreadyCompleted: false };
        }
        const state = decodeState(runId, key, rawState);
        if (state.status !== "completed") throw corrupt(runId, key, "expected a completed record");
        return { record: { ...state, key, result: parsed.value }, alreadyCompleted: false };
      }
      case "already_completed":
        return { record: this.#completed(runId, key, rawState, extra), alreadyCompleted: true };
      case "not_claimed":
      case "not_owner":
        throw this.#claimLost("complete", runId, key, owner, outcome, rawState);
      default:
        throw this.#unexpected(runId, key, reply);
    }
  }

  /** Extends a started claim's lease by `leaseMs` from now; JOURNAL_CLAIM_LOST unless `owner` holds it. */
  async renew(input: ClaimInput): Promise<StartedRecord> {
    this.#checkClaim(input);
    const reply = await this.#run("echoJournalRenew", input.runId, input.key, input.owner, input.leaseMs, "");
    const [outcome, rawState] = reply;
    switch (outcome) {
      case "renewed":
        return this.#started(input.runId, input.key, rawState);
      case "not_claimed":
      case "not_owner":
      case "already_completed":
        throw this.#claimLost("renew", input.runId, input.key, input.owner, outcome, rawState);
      default:
        throw this.#unexpected(input.runId, input.key, reply);
    }
  }

  /** Reads and decodes a run's whole journal in one round trip. JOURNAL_CORRUPT on any bad entry. */
  async readRun(runId: string): Promise<JournalSnapshot> {
    assertId("run id", runId);
    const fn = this.#script("echoJournalRead");
    const now = this.#clock === undefined ? "" : String(Math.floor(this.#clock.now()));
    const [nowText, flat] = (await fn(journalKey(this.keyPrefix, runId), now)) as [string, string[]];
    const states = new Map<string, string>();
    const results = new Map<string, string>();
    const outbox = new Map<string, string>();
    const claimOutbox = new Map<string, string>();
    for (let i = 0; i < flat.length; i += 2) {
      const field = flat[i] as string;
      const value = flat[i + 1] as string;
      const target = field.startsWith("s:")
        ? states
        : field.startsWith("r:")
          ? results
          : field.startsWith("o:")
            ? outbox
            : field.startsWith("c:")
              ? claimOutbox
              : undefined;
      if (target === undefined)
        throw corrupt(runId, field, "the field is none of s:<key>, r:<key>, o:<key> and c:<key>");
      target.set(field.slice(2), value);
    }
    for (const key of outbox.keys()) {
      if (!results.has(key)) throw corrupt(runId, key, "it has an outbox entry but no result");
    }
    for (const key of claimOutbox.keys()) {
      if (!states.has(key)) throw corrupt(runId, key, "it has a claim's outbox entry but no claim");
    }
    const records = new Map<string, JournalRecord>();
    for (const [key, rawState] of states) {
      records.set(key, toRecord(runId, key, decodeState(runId, key, rawState), results.get(key) ?? null));
      results.delete(key);
    }
    for (const key of results.keys()) throw corrupt(runId, key, "it has a result but no state");
    return { runId, now: Number(nowText), records, outbox, claimOutbox };
  }

  /**
   * Ends the leases of the run's open claims now; returns how many. Only for a run that no worker
   * runs (a failed or cancelled job about to be retried): its open claims belong to an attempt that
   * is over, and are in doubt at once (resolved by the in-doubt policy) instead of held until they
   * lapse.
   */
  async lapseClaims(runId: string): Promise<number> {
    assertId("run id", runId);
    const fn = this.#script("echoJournalLapse") as unknown as (key: string) => Promise<number>;
    return fn(journalKey(this.keyPrefix, runId));
  }

  /**
   * Deletes the outbox entries of `keys` (delivered by the caller) when no other journal call is
   * about to carry the acknowledgement (claim, complete and complete-then-claim take it along).
   */
  async acknowledge(
    runId: string,
    keys: readonly string[],
    claimKeys: readonly string[] = [],
  ): Promise<void> {
    assertId("run id", runId);
    const fields = acknowledged({ acknowledge: keys, acknowledgeClaims: claimKeys });
    if (fields.length === 0) return;
    await this.#redis.hdel(journalKey(this.keyPrefix, runId), ...fields);
  }

  #checkClaim(input: ClaimInput): void {
    assertId("run id", input.runId);
    assertId("idempotency key", input.key);
    assertId("owner", input.owner);
    assertPositiveMs("lease", input.leaseMs);
    if (input.leaseMs >= this.retentionMs) {
      throw new RunnerError(
        "JOURNAL_INPUT_INVALID",
        `lease (${input.leaseMs} ms) must be shorter than the journal retention (${this.retentionMs} ms)`,
      );
    }
  }

  #script(name: JournalScriptName): ScriptFn {
    const fn = (this.#redis as unknown as Record<string, ScriptFn>)[name];
    if (typeof fn !== "function") throw new RunnerError("INTERNAL", `journal command ${name} is not defined`);
    return fn.bind(this.#redis);
  }

  async #run(
    name: JournalScriptName,
    runId: string,
    key: string,
    owner: string,
    leaseMs: number,
    extra: string,
    ...more: string[]
  ): Promise<ScriptReply> {
    const now = this.#clock === undefined ? "" : String(Math.floor(this.#clock.now()));
    const reply = (await this.#script(name)(
      journalKey(this.keyPrefix, runId),
      key,
      owner,
      String(leaseMs),
      String(this.retentionMs),
      now,
      extra,
      ...more,
    )) as ScriptReply;
    if (reply[0] === "corrupt") {
      // Prefer the precise schema message; fall back to the script's reason when the state decodes.
      // (complete-then-claim: a 4-slot reply is the completion's, so the key is the completed one.)
      const about = name === "echoJournalCompleteThenClaim" && reply.length === 4 ? (more[0] as string) : key;
      decodeState(runId, about, reply[1]);
      throw corrupt(runId, about, reply[2]);
    }
    return reply;
  }

  #claimOutcome(input: ClaimInput, reply: ScriptReply): ClaimOutcome {
    const [outcome, rawState, extra] = reply;
    const { runId, key } = input;
    switch (outcome) {
      case "claimed":
        return { state: "claimed", record: this.#started(runId, key, rawState) };
      case "completed":
        return { state: "completed", record: this.#completed(runId, key, rawState, extra) };
      case "held": {
        const record = this.#started(runId, key, rawState);
        return { state: "held", owner: record.owner, until: record.leaseUntil, record };
      }
      case "in_doubt":
        return { state: "in_doubt", record: this.#started(runId, key, rawState) };
      default:
        throw this.#unexpected(runId, key, reply);
    }
  }

  #started(runId: string, key: string, rawState: string): StartedRecord {
    const record = toRecord(runId, key, decodeState(runId, key, rawState), null);
    if (record.status !== "started") throw corrupt(runId, key, "expected a started record");
    return record;
  }

  #completed(runId: string, key: string, rawState: string, rawResult: string): CompletedRecord {
    const record = toRecord(runId, key, decodeState(runId, key, rawState), rawResult);
    if (record.status !== "completed") throw corrupt(runId, key, "expected a completed record");
    return record;
  }

  #claimLost(op: string, runId: string, key: string, owner: string, outcome: string, rawState: string) {
    const holder = rawState === "" ? undefined : decodeState(runId, key, rawState);
    const why =
      outcome === "not_claimed"
        ? "it was never claimed"
        : outcome === "already_completed"
          ? "it is already completed"
          : `it is held by "${holder?.owner}" (attempt ${holder?.attempt})`;
    return new RunnerError(
      "JOURNAL_CLAIM_LOST",
      `Cannot ${op} key "${key}" of run "${runId}" as owner "${owner}": ${why}. Only the current claim owner may ${op} it.`,
      { data: { runId, key, owner, holder: holder?.owner, outcome } },
    );
  }

  #unexpected(runId: string, key: string, reply: ScriptReply): RunnerError {
    return new RunnerError(
      "INTERNAL",
      `journal script replied "${reply[0]}" for key "${key}" of run "${runId}"`,
    );
  }
}
