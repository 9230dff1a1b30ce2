import { randomBytes } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import { type Clock, RunnerError, sameIdentity, systemClock } from "../../shared/index.js";
import { type ApprovalPolicy, validateApprovalPolicy } from "./approval-policy.js";
import { APPROVAL_SCRIPTS, type ApprovalScriptName } from "./approval-scripts.js";
import { type ApprovalListing, damagedOrThrow } from "./damaged-record.js";
import { type DecisionEvent, readDecisionEvents } from "./decision-events.js";
import { type ExecutableCheck, type ExecutableCheckInput, judgeExecutable } from "./executable-check.js";
import { ApprovalKeys, assertApprovalInput, DEFAULT_APPROVALS_PREFIX, isApprovalId } from "./keys.js";
import { isLinkTokenShape, linkTokenHashes, newLinkToken } from "./link-tokens.js";
import type { ApprovalRecord, ApprovalStatus, FetchEntry } from "./record.js";
import { corrupt, type DecodedRequest, decodeRequest, type StoredToken } from "./record-codec.js";
import { encodeStoredRequest } from "./request-codec.js";
import { buildRequestFields, type RegisterInput } from "./request-fields.js";
import { type DecideInput, type DecideResult, decideArgs, toDecideResult } from "./store-decide.js";

/** Default time a finished request is kept: 30 days. */
export const DEFAULT_APPROVAL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Default largest canonical arguments accepted: 256 KiB. */
export const DEFAULT_MAX_ARGS_BYTES = 256 * 1024;
/** Fetches kept per request (newest first). */
export const FETCH_LOG_CAP = 50;

/** A notification target that keeps failing (see {@link ApprovalStore.failingTargets}). */
export interface FailingTarget {
  /** `<notifier>` or `<notifier>:<approver id>`, as deliveries name it. */
  readonly target: string;
  /** The most failed sends in a row on one request. */
  readonly failures: number;
  /** Pending requests it failed on. */
  readonly requests: number;
  /** When it is tried next (ms since the epoch), soonest over those requests. */
  readonly nextAt: number;
}

/** Options for {@link ApprovalStore}. */
export interface ApprovalStoreOptions {
  /** A connected ioredis client or cluster; the store defines its Lua commands on it. */
  redis: Redis | Cluster;
  /** Key prefix (`redis.key_prefix`). Default {@link DEFAULT_APPROVALS_PREFIX}. */
  keyPrefix?: string;
  /** Time source for deadlines and decisions. Default the system clock. */
  clock?: Clock;
  policy: ApprovalPolicy;
  /** How long a finished request is kept, ms. Default {@link DEFAULT_APPROVAL_RETENTION_MS}. */
  retentionMs?: number;
  /** Largest canonical arguments accepted, bytes. Default {@link DEFAULT_MAX_ARGS_BYTES}. */
  maxArgsBytes?: number;
}

/** What {@link ApprovalStore.register} did. */
export interface RegisterResult {
  record: ApprovalRecord;
  /** False when the request already existed (a replay): it is returned as it is, never reset. */
  created: boolean;
}

/** A presented link token resolved against its request. */
export interface TokenLookup {
  record: ApprovalRecord;
  approver: string;
  tokenHash: string;
  state: StoredToken["s"];
  /** When the token got its state (issued, used, or replaced by a newer message), ms. */
  at: number;
}

type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;
type Snapshot = [string[], string[]];

/**
 * The two-phase approval store (docs/DESIGN.md §8; reasoning in ARCHITECTURE.md): register a request,
 * decide it atomically, re-check it at execution. One Redis hash per request plus indexes, all under
 * one hash tag.
 */
export class ApprovalStore {
  readonly keys: ApprovalKeys;
  readonly clock: Clock;
  readonly retentionMs: number;
  readonly #redis: Redis | Cluster;
  readonly #policy: ApprovalPolicy;
  readonly #maxArgsBytes: number;

  constructor(options: ApprovalStoreOptions) {
    validateApprovalPolicy(options.policy);
    this.keys = new ApprovalKeys(options.keyPrefix ?? DEFAULT_APPROVALS_PREFIX);
    this.clock = options.clock ?? systemClock;
    this.retentionMs = options.retentionMs ?? DEFAULT_APPROVAL_RETENTION_MS;
    this.#maxArgsBytes = options.maxArgsBytes ?? DEFAULT_MAX_ARGS_BYTES;
    this.#redis = options.redis;
    this.#policy = options.policy;
    for (const [name, script] of Object.entries(APPROVAL_SCRIPTS)) {
      if (typeof (this.#redis as unknown as Record<string, unknown>)[name] !== "function") {
        this.#redis.defineCommand(name, { numberOfKeys: script.keys, lua: script.lua });
      }
    }
  }

  /** The approvers every request asks (from the policy). */
  get approvers(): ApprovalPolicy["approvers"] {
    return this.#policy.approvers;
  }

  /**
   * Phase 1: stores the request of one call, pending until its deadline. Idempotent: a second
   * register of the same call returns the existing request unchanged (`created: false`).
   */
  async register(input: RegisterInput): Promise<RegisterResult> {
    const now = Math.floor(this.clock.now());
    const { fields, executeGraceMs } = buildRequestFields(input, this.#policy, now, this.#maxArgsBytes);
    const { id, deadline } = fields;
    const reply = (await this.#script("echoApprovalRegister")(
      this.keys.request(id),
      this.keys.base,
      id,
      encodeStoredRequest(fields),
      deadline,
      fields.remindAt ?? "",
      fields.requiredApprovals,
      fields.owner ?? "",
      fields.forbidSelfApproval ? "1" : "0",
      fields.alwaysAllowed ? "1" : "0",
      executeGraceMs,
      input.runId,
      // The job id is the run id for every top-level run; stored only when it differs.
      input.jobId === input.runId ? "" : input.jobId,
      now,
      this.retentionMs,
    )) as [string, Snapshot];
    return { record: this.#decode(id, reply[1]).record, created: reply[0] === "created" };
  }

  /** The request, or null when there is none (or the id is not an approval id). */
  async get(id: string): Promise<ApprovalRecord | null> {
    return (await this.#read(id))?.record ?? null;
  }

  /** The request; APPROVAL_NOT_FOUND when there is none. */
  async require(id: string): Promise<ApprovalRecord> {
    const record = await this.get(id);
    if (record === null) {
      throw new RunnerError("APPROVAL_NOT_FOUND", `no approval request ${JSON.stringify(id)}`, {
        data: { id },
      });
    }
    return record;
  }

  /**
   * Resolves a presented link token against request `id`, without changing anything. The token is
   * looked up by its SHA-256 (one HMGET of `t:<hash>` in both stored forms: the current one and the
   * hex one of tokens issued by earlier releases), so an unknown request and a known one with a wrong
   * token cost the same and answer the same; only a valid token reads the request. Null when the
   * request or the token is unknown: callers show the same page. `tokenHash` is the form the token
   * is stored under, which the decision then marks used.
   */
  async lookupToken(id: string, token: unknown): Promise<TokenLookup | null> {
    if (!isApprovalId(id) || !isLinkTokenShape(token)) return null;
    const forms = linkTokenHashes(token);
    const stored = await this.#redis.hmget(this.keys.request(id), ...forms.map((form) => `t:${form}`));
    const found = stored.findIndex((value) => value !== null);
    if (found < 0) return null;
    const hash = forms[found]!;
    const read = await this.#read(id);
    const state = read?.tokens.get(hash);
    if (read === null || state === undefined) return null;
    return { record: read.record, approver: state.a, tokenHash: hash, state: state.s, at: state.at };
  }

  /**
   * Phase 2: records one person's decision atomically (Lua). A second decision of the request, a
   * used or replaced token, an expired request, self-approval when forbidden, a second vote of the
   * same person, or a person not on the current approvers list (a link of someone removed since it
   * was mailed) are refused and reported with the current record.
   */
  async decide(input: DecideInput): Promise<DecideResult> {
    if (!isApprovalId(input.id)) return { outcome: "not_found", record: null };
    let tokenHash = "";
    let by: string;
    let read: ApprovalRecord | null;
    if (input.actor.kind === "token") {
      const lookup = await this.lookupToken(input.id, input.actor.token);
      if (lookup === null) return { outcome: "token_invalid", record: null };
      // The token names who it was sent to; whether that person may decide is today's list's call:
      // someone removed from `approvers` since the mail went out decides nothing.
      if (this.findApprover(lookup.approver) === null) {
        return { outcome: "approver_removed", record: lookup.record };
      }
      tokenHash = lookup.tokenHash;
      by = lookup.approver;
      read = lookup.record;
    } else {
      // An operator (or a Slack clicker, mapped by their verified user id) is one of the configured
      // approvers, recorded under the id as configured: a typed "Alice " or a made-up "nobody-1"
      // never decides and never counts toward a quorum.
      const approver = this.findApprover(input.actor.id);
      if (approver === null) return { outcome: "not_an_approver", record: null };
      by = approver.id;
      read = await this.get(input.id);
      if (read === null) return { outcome: "not_found", record: null };
    }
    const identity = {
      by,
      self: read.owner !== null && sameIdentity(read.owner, by),
      voted: read.decisions.some((d) => sameIdentity(d.by, by)),
    };
    const args = decideArgs(input, tokenHash, Math.floor(this.clock.now()), this.retentionMs, identity);
    const reply = (await this.#script("echoApprovalDecide")(
      this.keys.request(input.id),
      this.keys.base,
      input.id,
      ...args,
    )) as [string, Snapshot?];
    const record = reply[1] === undefined ? null : this.#decode(input.id, reply[1]).record;
    return toDecideResult(input.id, reply[0], record);
  }

  /**
   * The configured approver a name refers to after `normaliseIdentity` (case, whitespace, NFKC), or
   * null when it names nobody on the list.
   */
  findApprover(name: string): ApprovalPolicy["approvers"][number] | null {
    return this.#policy.approvers.find((a) => sameIdentity(a.id, name)) ?? null;
  }

  /** Marks every pending request of a run cancelled (run cancelled or removed); returns their ids. */
  async cancelRun(runId: string): Promise<string[]> {
    assertApprovalInput("run id", runId);
    const fn = this.#script("echoApprovalCancelRun");
    return (await fn(
      this.keys.run(runId),
      this.keys.base,
      Math.floor(this.clock.now()),
      this.retentionMs,
    )) as string[];
  }

  /**
   * Forgets the run's cancelled requests (a retried run asks again, under the same ids); returns
   * their ids. Decided and expired requests stay.
   */
  async forgetCancelled(runId: string): Promise<string[]> {
    assertApprovalInput("run id", runId);
    const fn = this.#script("echoApprovalForgetCancelled");
    return (await fn(this.keys.run(runId), this.keys.base)) as string[];
  }

  /**
   * The ids of a run's requests. The index is a hash, and a set for runs parked
   * before, so both are read.
   */
  async runRequestIds(runId: string): Promise<string[]> {
    assertApprovalInput("run id", runId);
    const key = this.keys.run(runId);
    const type = await this.#redis.type(key);
    return type === "set" ? this.#redis.smembers(key) : this.#redis.hkeys(key);
  }

  /** Marks pending requests whose deadline passed as expired (for listings); returns their ids. */
  async expireDue(limit = 100): Promise<string[]> {
    const fn = this.#script("echoApprovalExpireDue");
    const now = Math.floor(this.clock.now());
    return (await fn(this.keys.pending, this.keys.base, now, this.retentionMs, limit)) as string[];
  }

  /** The client the store runs on (the digest index shares it and its `{approvals}` hash tag). */
  get redis(): Redis | Cluster {
    return this.#redis;
  }

  /**
   * Issues a new link token for one approver of a pending request, replacing the approver's previous
   * one in the same slot (one live token per approver and slot). The main slot ("") is the link of
   * a message to every target of the approver (the first one, a reminder); a re-send of some of
   * their targets after others reached them uses a slot per notifier (see `linkSlots`), so the link
   * they already have stays valid. Returns the token (to be sent, never stored) or null when the
   * request is no longer pending.
   */
  async issueToken(id: string, approverId: string, slot = ""): Promise<string | null> {
    const record = await this.require(id);
    if (!record.approvers.some((a) => a.id === approverId)) {
      throw new RunnerError("APPROVAL_INPUT_INVALID", `"${approverId}" is not an approver of request ${id}`);
    }
    const { token, hash } = newLinkToken();
    const fn = this.#script("echoApprovalIssueToken");
    const outcome = await fn(this.keys.request(id), approverId, hash, Math.floor(this.clock.now()), slot);
    return outcome === "issued" ? token : null;
  }

  /** Records that one notification target ("email:<approver>", "webhook", ...) was reached. */
  async markDelivered(id: string, target: string): Promise<void> {
    await this.#script("echoApprovalMarkDelivered")(
      this.keys.request(id),
      target,
      Math.floor(this.clock.now()),
    );
  }

  /**
   * The back-off of targets whose sends failed: per target, how many sends failed and when the next
   * may be tried (ms). Targets that never failed are absent.
   */
  async targetBackoff(
    id: string,
    targets: readonly string[],
  ): Promise<Map<string, { failures: number; nextAt: number }>> {
    const out = new Map<string, { failures: number; nextAt: number }>();
    if (targets.length === 0) return out;
    const values = await this.#redis.hmget(this.keys.request(id), ...targets.map((t) => `bo:${t}`));
    values.forEach((value, i) => {
      const match = value === null ? null : /^(\d+)\|(\d+)$/.exec(value);
      if (match) out.set(targets[i]!, { failures: Number(match[1]), nextAt: Number(match[2]) });
    });
    return out;
  }

  /**
   * Notification targets that keep failing: over the pending requests (soonest deadline first, at
   * most `scan`), each target with at least `minFailures` failed sends on some request, with its
   * worst count, how many requests it failed on and when it is tried next. For doctor and /admin:
   * an approver whose webhook keeps failing never sees a link, and nobody else notices.
   */
  async failingTargets(options: { minFailures?: number; scan?: number } = {}): Promise<FailingTarget[]> {
    const minFailures = options.minFailures ?? 3;
    const ids = await this.#redis.zrange(this.keys.pending, 0, Math.max(1, options.scan ?? 500) - 1);
    const byTarget = new Map<string, FailingTarget>();
    for (const id of ids) {
      const fields = await this.#redis.hgetall(this.keys.request(id));
      for (const [field, value] of Object.entries(fields)) {
        if (!field.startsWith("bo:")) continue;
        const match = /^(\d+)\|(\d+)$/.exec(value);
        if (!match) continue;
        const failures = Number(match[1]);
        if (failures < minFailures) continue;
        const target = field.slice(3);
        const seen = byTarget.get(target);
        byTarget.set(target, {
          target,
          failures: Math.max(failures, seen?.failures ?? 0),
          requests: (seen?.requests ?? 0) + 1,
          nextAt: Math.min(Number(match[2]), seen?.nextAt ?? Number.POSITIVE_INFINITY),
        });
      }
    }
    return [...byTarget.values()].sort((a, b) => b.failures - a.failures || a.target.localeCompare(b.target));
  }

  /** Counts a failed send to one target and sets when it may be tried again; returns the count. */
  async markTargetFailed(id: string, target: string, nextAt: number): Promise<number> {
    const fn = this.#script("echoApprovalMarkTargetFailed");
    return Number(await fn(this.keys.request(id), target, Math.floor(nextAt)));
  }

  /** Records that the notification went out; a crash before this re-sends it. */
  async markNotified(id: string): Promise<void> {
    const fn = this.#script("echoApprovalMarkNotified");
    await fn(this.keys.request(id), this.keys.unsent, id, Math.floor(this.clock.now()));
  }

  /** Ids of requests whose notification has not gone out, oldest first. */
  async unsentIds(limit = 100): Promise<string[]> {
    return this.#redis.zrange(this.keys.unsent, 0, limit - 1);
  }

  /**
   * Claims the right to mail request `id` for `leaseMs` (wall-clock, kept by Redis): the returned
   * owner token, or null while another sender (inline notify or any process's sweep) holds it. A
   * crashed holder's lease simply expires, so the mail is still sent by the next sweep.
   */
  async claimSendLease(id: string, leaseMs: number): Promise<string | null> {
    assertApprovalInput("approval id", id);
    const owner = randomBytes(16).toString("hex");
    const reply = await this.#redis.set(this.keys.sendLease(id), owner, "PX", leaseMs, "NX");
    return reply === "OK" ? owner : null;
  }

  /** Extends a held send lease; false when `owner` no longer holds it (expired or taken over). */
  async renewSendLease(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const fn = this.#script("echoApprovalRenewSendLease");
    return (await fn(this.keys.sendLease(id), owner, leaseMs)) === 1;
  }

  /** Gives a send lease back (only if `owner` still holds it), so the next sender need not wait. */
  async releaseSendLease(id: string, owner: string): Promise<void> {
    await this.#script("echoApprovalReleaseSendLease")(this.keys.sendLease(id), owner);
  }

  /** Claims due reminders for `leaseMs` (a failed send is tried again after the lease). */
  async claimReminders(leaseMs: number, limit = 100, now = this.clock.now()): Promise<string[]> {
    const fn = this.#script("echoApprovalClaimReminders");
    return (await fn(this.keys.remind, this.keys.base, Math.floor(now), leaseMs, limit)) as string[];
  }

  /** Records that the reminder went out (once). */
  async markReminded(id: string): Promise<void> {
    const fn = this.#script("echoApprovalMarkReminded");
    await fn(this.keys.request(id), this.keys.remind, id, Math.floor(this.clock.now()));
  }

  /** Appends a fetch of a link to an existing request's capped log (unknown ids record nothing). */
  async recordFetch(id: string, fetch: Omit<FetchEntry, "at">): Promise<void> {
    if (!isApprovalId(id)) return;
    const entry: FetchEntry = {
      at: Math.floor(this.clock.now()),
      method: fetch.method,
      ip: fetch.ip.slice(0, 64),
      userAgent: fetch.userAgent.slice(0, 300),
      approver: fetch.approver,
    };
    const fn = this.#script("echoApprovalRecordFetch");
    await fn(this.keys.request(id), this.keys.fetches(id), JSON.stringify(entry), FETCH_LOG_CAP);
  }

  /**
   * The check at the moment of execution: this run, this tool, arguments with the approved hash,
   * status approved and the approval fresh. Reads the request now; never trusts an earlier read.
   */
  async checkExecutable(input: ExecutableCheckInput, now = this.clock.now()): Promise<ExecutableCheck> {
    return judgeExecutable(await this.get(input.id), input, now);
  }

  /**
   * The readable requests of {@link listWithDamaged}. Only for callers that show no person a list (a
   * view an operator reads uses listWithDamaged, so a damaged request is shown, never hidden).
   */
  async list(options: { status?: ApprovalStatus; limit?: number } = {}): Promise<ApprovalRecord[]> {
    return (await this.listWithDamaged(options)).records;
  }

  /**
   * Requests, newest first (pending: soonest deadline first), at most `limit` readable ones, and
   * every request on the way that cannot be read (APPROVAL_CORRUPT): one damaged request never
   * stops the list. A damaged one's status cannot be known, so it is reported whatever `status`
   * asks for; it is never counted as decided.
   */
  async listWithDamaged(options: { status?: ApprovalStatus; limit?: number } = {}): Promise<ApprovalListing> {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
    const ids =
      options.status === "pending"
        ? await this.#redis.zrange(this.keys.pending, 0, limit - 1)
        : await this.#redis.zrevrange(this.keys.all, 0, (options.status ? 10 : 1) * limit - 1);
    const listing: ApprovalListing = { records: [], damaged: [] };
    for (const id of ids) {
      let record: ApprovalRecord | null;
      try {
        record = await this.get(id);
      } catch (err) {
        listing.damaged.push(damagedOrThrow(id, err));
        continue;
      }
      if (record && (options.status === undefined || record.status === options.status)) {
        listing.records.push(record);
      }
      if (listing.records.length >= limit) break;
    }
    return listing;
  }

  /**
   * The requests of these ids, in the given order: the readable ones (absent ids left out) and the
   * damaged ones (APPROVAL_CORRUPT), so a view of a run shows every request it can and names the
   * rest. Any other failure (Redis unreachable) is thrown.
   */
  async readMany(ids: readonly string[]): Promise<ApprovalListing> {
    const read = await Promise.all(
      ids.map((id) =>
        this.get(id).then(
          (record) => ({ record, damaged: null }),
          (err: unknown) => ({ record: null, damaged: damagedOrThrow(id, err) }),
        ),
      ),
    );
    return {
      records: read.flatMap((r) => (r.record === null ? [] : [r.record])),
      damaged: read.flatMap((r) => (r.damaged === null ? [] : [r.damaged])),
    };
  }

  /**
   * Final decisions after `afterStreamId` ("0" = from the start, "$" = only new ones with
   * `blockMs`), oldest first. Every decision path (page, API, CLI, expiry, cancel) writes here, so a
   * worker in another process can promote the parked job. `blockMs` blocks the connection: use a
   * dedicated client for it.
   */
  async readEvents(
    afterStreamId = "0",
    options: { count?: number; blockMs?: number } = {},
  ): Promise<DecisionEvent[]> {
    return readDecisionEvents(this.#redis, this.keys.events, afterStreamId, options);
  }

  /**
   * Where promoters read the events stream on from: the position saved by the last one that woke
   * runs (shared by every process), or the newest entry when none was saved yet ("0-0" for an empty
   * stream). Decisions older than that are found by {@link decidedSince} at start.
   */
  async promoterPosition(): Promise<string> {
    const saved = await this.#redis.get(this.keys.promoterPosition);
    if (saved !== null) return saved;
    const [newest] = await this.#redis.xrevrange(this.keys.events, "+", "-", "COUNT", 1);
    return newest?.[0] ?? "0-0";
  }

  /** Records that the runs of every event up to `streamId` were woken (only ever moves forward). */
  async savePromoterPosition(streamId: string): Promise<void> {
    await this.#script("echoApprovalSavePromoterPosition")(this.keys.promoterPosition, streamId);
  }

  /**
   * Of these parked runs, the ids of those with a request that became final after `since` (ms, the
   * run's last start): a decision the run has not read, e.g. made while no worker ran.
   */
  async decidedSince(runs: readonly { runId: string; since: number }[]): Promise<string[]> {
    if (runs.length === 0) return [];
    for (const run of runs) assertApprovalInput("run id", run.runId);
    const pairs = runs.flatMap((run) => [run.runId, String(Math.floor(run.since))]);
    const fn = this.#script("echoApprovalDecidedSince");
    return (await fn(this.keys.promoterPosition, this.keys.base, ...pairs)) as string[];
  }

  /** The HMAC secret of page nonces: made once (SET NX) and shared by every HTTP process. */
  async pageSecret(): Promise<Buffer> {
    await this.#redis.set(this.keys.pageSecret, randomBytes(32).toString("base64"), "NX");
    const value = await this.#redis.get(this.keys.pageSecret);
    if (value === null)
      throw new RunnerError("INTERNAL", "the approval page secret vanished right after SET NX");
    return Buffer.from(value, "base64");
  }

  async #read(id: string): Promise<DecodedRequest | null> {
    if (!isApprovalId(id)) return null;
    const [flat, fetches] = await Promise.all([
      this.#redis.hgetall(this.keys.request(id)),
      this.#redis.lrange(this.keys.fetches(id), 0, -1),
    ]).catch((err: unknown) => {
      // A key overwritten with another type is as damaged as a field that does not parse.
      if (err instanceof Error && err.message.startsWith("WRONGTYPE")) {
        throw corrupt(id, "its request or fetch-log key holds the wrong kind of Redis value", err);
      }
      throw err;
    });
    if (Object.keys(flat).length === 0) return null;
    return decodeRequest(id, Object.entries(flat).flat(), fetches);
  }

  #decode(id: string, snapshot: Snapshot): DecodedRequest {
    return decodeRequest(id, snapshot[0], snapshot[1]);
  }

  #script(name: ApprovalScriptName): ScriptFn {
    const fn = (this.#redis as unknown as Record<string, ScriptFn>)[name];
    if (typeof fn !== "function")
      throw new RunnerError("INTERNAL", `approval command ${name} is not defined`);
    return fn.bind(this.#redis);
  }
}
