import type { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { isRunnerError, ManualClock, sha256Hex } from "../shared/index.js";
import { Journal } from "./journal.js";
import { modelStepKey } from "./keys.js";

const redis = testRedisClient();
const prefix = uniquePrefix("journal");
const clock = new ManualClock(1_700_000_000_000);
const RETENTION = 3_600_000;
let journal: Journal;
let run = 0;
let runId: string;

beforeEach(() => {
  journal = new Journal({ redis, keyPrefix: prefix, retentionMs: RETENTION, clock });
  runId = `run-${++run}`;
});

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isRunnerError(err), `expected a RunnerError, got ${String(err)}`).toBe(true);
  expect((err as { code: string }).code).toBe(code);
}

describe("Journal claim and complete", () => {
  it("claims a new key, records its result and replays it from a second claim and from readRun", async () => {
    const key = sha256Hex("trace-1/write_file/0");
    const first = await journal.claim({ runId, key, owner: "w1", leaseMs: 30_000 });
    expect(first).toMatchObject({ state: "claimed", record: { status: "started", owner: "w1", attempt: 1 } });
    const result = {
      success: true,
      output: "ok",
      list: [],
      big: 2 ** 60,
      frac: 0.1 + 0.2,
      nested: { a: [1, "x"] },
    };
    const done = await journal.complete({ runId, key, owner: "w1", result });
    expect(done.alreadyCompleted).toBe(false);
    expect(done.record).toMatchObject({ status: "completed", result, completedAt: clock.now() });

    const again = await journal.claim({ runId, key, owner: "w2", leaseMs: 30_000 });
    expect(again).toMatchObject({ state: "completed", record: { result, owner: "w1" } });

    await journal.claim({ runId, key: modelStepKey(0), owner: "w1", leaseMs: 30_000 });
    const snapshot = await journal.readRun(runId);
    expect(snapshot.now).toBe(clock.now());
    expect([...snapshot.records.keys()].sort()).toEqual([key, "model:0"].sort());
    expect(snapshot.records.get(key)).toEqual(done.record);
    expect(snapshot.records.get("model:0")).toMatchObject({ status: "started", owner: "w1" });
  });

  it("reads an unknown run as an empty journal", async () => {
    const snapshot = await journal.readRun("never-started");
    expect(snapshot.records.size).toBe(0);
  });

  it("reports a live claim of another owner as held, with its owner and lease end", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 10_000 });
    clock.advance(9_999);
    const outcome = await journal.claim({ runId, key: "k", owner: "w2", leaseMs: 10_000 });
    expect(outcome).toMatchObject({ state: "held", owner: "w1", until: clock.now() + 1 });
  });

  it("does not let the same owner claim its own live claim twice", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 10_000 });
    expect((await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 10_000 })).state).toBe("held");
  });

  it("reports a claim whose lease lapsed without a result as in doubt", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 10_000 });
    clock.advance(10_000);
    const outcome = await journal.claim({ runId, key: "k", owner: "w2", leaseMs: 10_000 });
    expect(outcome).toMatchObject({ state: "in_doubt", record: { owner: "w1", attempt: 1 } });
  });

  it("uses the Redis server's clock when no Clock is injected", async () => {
    const real = new Journal({ redis, keyPrefix: prefix, retentionMs: RETENTION });
    const redisNow = async () => {
      const [s, us] = await redis.time();
      return Number(s) * 1000 + Math.floor(Number(us) / 1000);
    };
    const claimed = await real.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    if (claimed.state !== "claimed") throw new Error(`expected claimed, got ${claimed.state}`);
    expect(Math.abs(claimed.record.claimedAt - (await redisNow()))).toBeLessThan(1_000);
    expect(claimed.record.leaseUntil - claimed.record.claimedAt).toBe(1_000);
    // Held while Redis's clock is inside the lease: the answer is checked against the Redis time read
    // on both sides of the call, so a slow machine never turns it red (nor hides a wrong answer).
    const before = await redisNow();
    const second = (await real.claim({ runId, key: "k", owner: "w2", leaseMs: 1_000 })).state;
    const after = await redisNow();
    if (after < claimed.record.leaseUntil) expect(second).toBe("held");
    else if (before > claimed.record.leaseUntil) expect(second).toBe("in_doubt");
    else expect(["held", "in_doubt"]).toContain(second);
    // Wait on Redis's own clock (not a guessed sleep) until the lease end has passed.
    while ((await redisNow()) <= claimed.record.leaseUntil) await new Promise((r) => setTimeout(r, 20));
    expect((await real.claim({ runId, key: "k", owner: "w2", leaseMs: 1_000 })).state).toBe("in_doubt");
  });

  it("lets exactly one of 50 concurrent clients claim a key", async () => {
    const clients: Redis[] = Array.from({ length: 50 }, () => testRedisClient());
    try {
      await Promise.all(clients.map((c) => c.ping()));
      const outcomes = await Promise.all(
        clients.map((c, i) =>
          new Journal({ redis: c, keyPrefix: prefix, retentionMs: RETENTION }).claim({
            runId,
            key: "contested",
            owner: `w${i}`,
            leaseMs: 30_000,
          }),
        ),
      );
      const winners = outcomes.filter((o) => o.state === "claimed");
      expect(winners).toHaveLength(1);
      expect(outcomes.filter((o) => o.state === "held")).toHaveLength(49);
      const winner = winners[0]?.record.owner;
      for (const o of outcomes) if (o.state === "held") expect(o.owner).toBe(winner);
    } finally {
      for (const c of clients) c.disconnect();
    }
  });
});

describe("Journal take-over and fencing", () => {
  it("takes over an in-doubt claim once, as attempt 2, and refuses the stale owner's complete", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    clock.advance(1_000);
    const taken = await journal.reclaim({ runId, key: "k", owner: "w2", leaseMs: 1_000, attempt: 1 });
    expect(taken).toMatchObject({ state: "claimed", record: { owner: "w2", attempt: 2 } });
    const late = await journal.reclaim({ runId, key: "k", owner: "w3", leaseMs: 1_000, attempt: 1 });
    expect(late).toMatchObject({ state: "held", owner: "w2" });

    await expectCode(
      journal.complete({ runId, key: "k", owner: "w1", result: "stale" }),
      "JOURNAL_CLAIM_LOST",
    );
    await journal.complete({ runId, key: "k", owner: "w2", result: "fresh" });
    expect((await journal.readRun(runId)).records.get("k")).toMatchObject({ result: "fresh", owner: "w2" });
  });

  it("reports the current state when asked to take over an attempt that is no longer the in-doubt one", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    clock.advance(1_000);
    await journal.reclaim({ runId, key: "k", owner: "w2", leaseMs: 1_000, attempt: 1 });
    clock.advance(1_000);
    const outcome = await journal.reclaim({ runId, key: "k", owner: "w3", leaseMs: 1_000, attempt: 1 });
    expect(outcome).toMatchObject({ state: "in_doubt", record: { owner: "w2", attempt: 2 } });
  });

  it("refuses to take over a key that was never claimed", async () => {
    await expectCode(
      journal.reclaim({ runId, key: "nope", owner: "w1", leaseMs: 1_000, attempt: 1 }),
      "JOURNAL_INPUT_INVALID",
    );
  });

  it("refuses to complete a key nobody claimed", async () => {
    await expectCode(journal.complete({ runId, key: "k", owner: "w1", result: 1 }), "JOURNAL_CLAIM_LOST");
  });

  it("keeps the first result when the owner repeats its complete", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    await journal.complete({ runId, key: "k", owner: "w1", result: { n: 1 } });
    const again = await journal.complete({ runId, key: "k", owner: "w1", result: { n: 2 } });
    expect(again).toMatchObject({ alreadyCompleted: true, record: { result: { n: 1 } } });
  });

  it("lets the owner complete after its lease lapsed when nobody took the claim over", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    clock.advance(5_000);
    expect((await journal.complete({ runId, key: "k", owner: "w1", result: 1 })).record.status).toBe(
      "completed",
    );
  });

  it("renews the lease for its owner only", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    clock.advance(900);
    const renewed = await journal.renew({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    expect(renewed.leaseUntil).toBe(clock.now() + 1_000);
    clock.advance(900);
    expect((await journal.claim({ runId, key: "k", owner: "w2", leaseMs: 1_000 })).state).toBe("held");
    await expectCode(journal.renew({ runId, key: "k", owner: "w2", leaseMs: 1_000 }), "JOURNAL_CLAIM_LOST");
    await journal.complete({ runId, key: "k", owner: "w1", result: null });
    await expectCode(journal.renew({ runId, key: "k", owner: "w1", leaseMs: 1_000 }), "JOURNAL_CLAIM_LOST");
  });
});

describe("Journal complete-then-claim (one round trip per step)", () => {
  it("records one key and claims the next atomically, as complete and claim would", async () => {
    await journal.claim({ runId, key: "model:0", owner: "w1", leaseMs: 10_000 });
    const both = await journal.completeThenClaim({
      runId,
      owner: "w1",
      leaseMs: 10_000,
      complete: { key: "model:0", result: { calls: [] } },
      key: "call-0",
    });
    expect(both.completed).toMatchObject({ alreadyCompleted: false, record: { result: { calls: [] } } });
    expect(both.claimed).toMatchObject({ state: "claimed", record: { owner: "w1", attempt: 1 } });
    const snapshot = await journal.readRun(runId);
    expect(snapshot.records.get("model:0")).toMatchObject({ status: "completed", result: { calls: [] } });
    expect(snapshot.records.get("call-0")).toMatchObject({ status: "started", owner: "w1" });
  });

  it("claims nothing when the completion is refused (fencing)", async () => {
    await journal.claim({ runId, key: "model:0", owner: "w1", leaseMs: 10_000 });
    await expectCode(
      journal.completeThenClaim({
        runId,
        owner: "w2",
        leaseMs: 10_000,
        complete: { key: "model:0", result: "x" },
        key: "call-0",
      }),
      "JOURNAL_CLAIM_LOST",
    );
    const snapshot = await journal.readRun(runId);
    expect(snapshot.records.has("call-0")).toBe(false);
    expect(snapshot.records.get("model:0")).toMatchObject({ status: "started", owner: "w1" });
  });

  it("reports the claimed key as claim does: completed, held or in doubt", async () => {
    await journal.claim({ runId, key: "done", owner: "w0", leaseMs: 10_000 });
    await journal.complete({ runId, key: "done", owner: "w0", result: 7 });
    await journal.claim({ runId, key: "held", owner: "w0", leaseMs: 10_000 });
    await journal.claim({ runId, key: "doubt", owner: "w0", leaseMs: 1_000 });
    clock.advance(1_000);
    const steps = ["a", "b", "c", "d"];
    await journal.claim({ runId, key: "a", owner: "w1", leaseMs: 10_000 });
    const outcomes: string[] = [];
    for (const [i, key] of ["done", "held", "doubt"].entries()) {
      const { claimed } = await journal.completeThenClaim({
        runId,
        owner: "w1",
        leaseMs: 10_000,
        complete: { key: steps[i]!, result: i },
        key,
      });
      outcomes.push(claimed.state);
      await journal.claim({ runId, key: steps[i + 1]!, owner: "w1", leaseMs: 10_000 });
    }
    expect(outcomes).toEqual(["completed", "held", "in_doubt"]);
  });

  it("refuses to act on a key whose state does not decode, naming that key", async () => {
    await journal.claim({ runId, key: "model:0", owner: "w1", leaseMs: 10_000 });
    await redis.hset(journal.keyOf(runId), "s:call-0", "not json");
    const err = await journal
      .completeThenClaim({
        runId,
        owner: "w1",
        leaseMs: 10_000,
        complete: { key: "model:0", result: 1 },
        key: "call-0",
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "JOURNAL_CORRUPT" });
    expect(String((err as Error).message)).toContain("call-0");
  });
});

describe("Journal corruption, retention and input checks", () => {
  it.each([
    ["a state that is not JSON", { "s:k": "{not json" }],
    [
      "a state of another version",
      {
        "s:k": JSON.stringify({
          v: 2,
          status: "started",
          owner: "w",
          attempt: 1,
          claimedAt: 1,
          leaseUntil: 2,
        }),
      },
    ],
    [
      "a state with an unknown status",
      {
        "s:k": JSON.stringify({ v: 1, status: "done", owner: "w", attempt: 1, claimedAt: 1, leaseUntil: 2 }),
      },
    ],
    [
      "a completed state without its result",
      {
        "s:k": JSON.stringify({
          v: 1,
          status: "completed",
          owner: "w",
          attempt: 1,
          claimedAt: 1,
          leaseUntil: 2,
          completedAt: 2,
        }),
      },
    ],
  ])("raises JOURNAL_CORRUPT from claim and readRun for %s", async (_label, fields) => {
    await redis.hset(journal.keyOf(runId), fields);
    await expectCode(journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 }), "JOURNAL_CORRUPT");
    await expectCode(journal.readRun(runId), "JOURNAL_CORRUPT");
    expect(await redis.hget(journal.keyOf(runId), "s:k")).toBe(fields["s:k"]);
  });

  it.each([
    ["a result that is not JSON", { "r:k": "{oops" }],
    ["a result without a state", { "r:other": "1" }],
    ["a field of neither kind", { "x:k": "1" }],
    [
      "a state with an extra field",
      {
        "s:k2": JSON.stringify({
          v: 1,
          status: "started",
          owner: "w",
          attempt: 1,
          claimedAt: 1,
          leaseUntil: 2,
          extra: 1,
        }),
      },
    ],
  ])("raises JOURNAL_CORRUPT from readRun for %s", async (_label, extra) => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    await journal.complete({ runId, key: "k", owner: "w1", result: 1 });
    await redis.hset(journal.keyOf(runId), extra);
    const err = await journal.readRun(runId).catch((e: unknown) => e);
    expect(isRunnerError(err, "JOURNAL_CORRUPT")).toBe(true);
    expect((err as Error).message).toContain(runId);
  });

  it("sets the retention as a TTL on the run's journal and refreshes it on every write", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    const ttl = await redis.pttl(journal.keyOf(runId));
    expect(ttl).toBeGreaterThan(RETENTION - 5_000);
    expect(ttl).toBeLessThanOrEqual(RETENTION);
    await redis.pexpire(journal.keyOf(runId), 10_000);
    await journal.complete({ runId, key: "k", owner: "w1", result: 1 });
    expect(await redis.pttl(journal.keyOf(runId))).toBeGreaterThan(RETENTION - 5_000);
  });

  it("keys each run's journal under its own Redis Cluster hash tag", () => {
    expect(journal.keyOf("abc")).toBe(`${prefix}:{run:abc}:journal`);
  });

  it.each([
    ["a run id with a brace", { runId: "a{b}", key: "k", owner: "w", leaseMs: 1 }],
    ["an empty key", { runId: "r", key: "", owner: "w", leaseMs: 1 }],
    ["an empty owner", { runId: "r", key: "k", owner: "", leaseMs: 1 }],
    ["a zero lease", { runId: "r", key: "k", owner: "w", leaseMs: 0 }],
    ["a fractional lease", { runId: "r", key: "k", owner: "w", leaseMs: 1.5 }],
    ["a lease as long as the retention", { runId: "r", key: "k", owner: "w", leaseMs: RETENTION }],
  ])("rejects %s with JOURNAL_INPUT_INVALID", async (_label, input) => {
    await expectCode(journal.claim(input), "JOURNAL_INPUT_INVALID");
  });

  it("rejects a result that has no JSON form", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: 1_000 });
    await expectCode(
      journal.complete({ runId, key: "k", owner: "w1", result: { n: 1n } }),
      "JOURNAL_INPUT_INVALID",
    );
  });

  it.each([
    ["a prefix ending in a colon", { keyPrefix: "echo:" }],
    ["a prefix with a brace", { keyPrefix: "{echo}" }],
    ["a zero retention", { retentionMs: 0 }],
  ])("refuses to construct with %s", (_label, options) => {
    expect(() => new Journal({ redis, ...options })).toThrow(/must/);
  });
});

describe("the outbox: what a completion stores for later delivery", () => {
  const lease = 30_000;
  it("stores the entry in the completion's write, reads it back and deletes it when acknowledged", async () => {
    await journal.claim({ runId, key: "k1", owner: "w", leaseMs: lease });
    await journal.complete({ runId, key: "k1", owner: "w", result: { ok: 1 }, outbox: "entry-1" });
    expect((await journal.readRun(runId)).outbox).toEqual(new Map([["k1", "entry-1"]]));
    // The next claim carries the acknowledgement.
    await journal.claim({ runId, key: "k2", owner: "w", leaseMs: lease, acknowledge: ["k1"] });
    const after = await journal.readRun(runId);
    expect(after.outbox.size).toBe(0);
    expect(after.records.get("k1")).toMatchObject({ status: "completed", result: { ok: 1 } });
  });

  it("complete-then-claim stores the completed key's entry and acknowledges others in one round trip", async () => {
    await journal.claim({ runId, key: "a", owner: "w", leaseMs: lease });
    await journal.complete({ runId, key: "a", owner: "w", result: 1, outbox: "entry-a" });
    await journal.claim({ runId, key: "b", owner: "w", leaseMs: lease });
    const { claimed } = await journal.completeThenClaim({
      runId,
      key: "c",
      owner: "w",
      leaseMs: lease,
      acknowledge: ["a"],
      complete: { key: "b", result: 2, outbox: "entry-b" },
    });
    expect(claimed.state).toBe("claimed");
    expect((await journal.readRun(runId)).outbox).toEqual(new Map([["b", "entry-b"]]));
    await journal.acknowledge(runId, ["b"]);
    expect((await journal.readRun(runId)).outbox.size).toBe(0);
  });

  it("a refused completion stores no entry; a retried one keeps the first", async () => {
    await journal.claim({ runId, key: "k", owner: "w1", leaseMs: lease });
    await expectCode(
      journal.complete({ runId, key: "k", owner: "w2", result: 1, outbox: "not-mine" }),
      "JOURNAL_CLAIM_LOST",
    );
    expect((await journal.readRun(runId)).outbox.size).toBe(0);
    await journal.complete({ runId, key: "k", owner: "w1", result: 1, outbox: "first" });
    const again = await journal.complete({ runId, key: "k", owner: "w1", result: 1, outbox: "second" });
    expect(again.alreadyCompleted).toBe(true);
    expect((await journal.readRun(runId)).outbox).toEqual(new Map([["k", "first"]]));
  });

  it("a claim stores its entry only when it takes the key, in the same write; acknowledged apart from results'", async () => {
    const first = await journal.claim({ runId, key: "k", owner: "w1", leaseMs: lease, outbox: "decided-1" });
    expect(first.state).toBe("claimed");
    expect(await redis.hget(journal.keyOf(runId), "c:k")).toBe("decided-1");
    // A claim that finds the key held (or completed, or in doubt) stores nothing over it.
    const again = await journal.claim({ runId, key: "k", owner: "w2", leaseMs: lease, outbox: "decided-2" });
    expect(again.state).toBe("held");
    expect((await journal.readRun(runId)).claimOutbox).toEqual(new Map([["k", "decided-1"]]));
    // Complete-then-claim stores the claimed key's entry too.
    await journal.completeThenClaim({
      runId,
      key: "k2",
      owner: "w1",
      leaseMs: lease,
      outbox: "decided-k2",
      complete: { key: "k", result: 1, outbox: "ran-k" },
    });
    const read = await journal.readRun(runId);
    expect(read.claimOutbox).toEqual(
      new Map([
        ["k", "decided-1"],
        ["k2", "decided-k2"],
      ]),
    );
    expect(read.outbox).toEqual(new Map([["k", "ran-k"]]));
    // Acknowledging the claim's entry of k leaves the result's entry of k, and the other way round.
    await journal.claim({ runId, key: "k3", owner: "w1", leaseMs: lease, acknowledgeClaims: ["k"] });
    expect((await journal.readRun(runId)).outbox).toEqual(new Map([["k", "ran-k"]]));
    expect((await journal.readRun(runId)).claimOutbox).toEqual(new Map([["k2", "decided-k2"]]));
    await journal.acknowledge(runId, ["k"], ["k2"]);
    const done = await journal.readRun(runId);
    expect([done.outbox.size, done.claimOutbox.size]).toEqual([0, 0]);
  });

  it("an acknowledgement deletes outbox fields only: a script given another field writes nothing", async () => {
    await journal.claim({ runId, key: "k", owner: "w", leaseMs: lease, outbox: "decided" });
    const claim = (redis as unknown as Record<string, (...args: string[]) => Promise<unknown>>)
      .echoJournalClaim as (...args: string[]) => Promise<unknown>;
    const key = journal.keyOf(runId);
    await expect(claim.call(redis, key, "k2", "w", "1000", String(RETENTION), "", "", "s:k")).rejects.toThrow(
      /not an outbox field/,
    );
    const read = await journal.readRun(runId);
    expect(read.records.get("k")?.status).toBe("started");
    expect(read.records.has("k2")).toBe(false);
  });

  it("refuses a journal whose claim's entry has no claim (JOURNAL_CORRUPT)", async () => {
    await redis.hset(journal.keyOf(runId), "c:k", "orphan");
    await expectCode(journal.readRun(runId), "JOURNAL_CORRUPT");
  });

  it("refuses a journal whose outbox entry has no result (JOURNAL_CORRUPT)", async () => {
    await journal.claim({ runId, key: "k", owner: "w", leaseMs: lease });
    await redis.hset(journal.keyOf(runId), "o:k", "orphan");
    await expectCode(journal.readRun(runId), "JOURNAL_CORRUPT");
  });
});
