import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { type InDoubtAction, Journal } from "../../journal/index.js";
import { ManualClock, sha256Hex } from "../../shared/index.js";
import { type ClaimAndRunOptions, claimAndRun } from "./claim-and-run.js";
import { ParkSignal } from "./park-signal.js";

const redis = testRedisClient();
const prefix = uniquePrefix("claim-and-run");
const clock = new ManualClock(1_700_000_000_000);
const LEASE = 10_000;
let journal: Journal;
let runId: string;
let key: string;
let n = 0;

beforeEach(() => {
  journal = new Journal({ redis, keyPrefix: prefix, retentionMs: 3_600_000, clock });
  runId = `run-${++n}`;
  key = sha256Hex(`trace/${n}/send_mail/0`);
});

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

/** The options of one worker's claimAndRun; `runs` counts the side effects it performed. */
function worker(owner: string, onInDoubt: () => Promise<InDoubtAction>) {
  const runs: number[] = [];
  const options: ClaimAndRunOptions = {
    journal,
    runId,
    key,
    owner,
    leaseMs: LEASE,
    onInDoubt,
    inDoubtFailure: () => ({ success: false, error: "in doubt" }),
    parkInDoubt: async () => clock.now() + 60_000,
    produce: async (claim) => {
      runs.push(claim.attempt);
      return { success: true, output: `sent by ${owner}` };
    },
  };
  return { options, runs };
}

/** Worker A claims the key and dies (in this test: stops) before completing; its lease lapses. */
async function claimAndLapse(): Promise<void> {
  const claimed = await journal.claim({ runId, key, owner: "A", leaseMs: LEASE });
  expect(claimed.state).toBe("claimed");
  clock.advance(LEASE + 1);
}

describe("claimAndRun: the completed-call race", () => {
  it.each(["rerun", "fail"] as const)(
    "does not run a call whose earlier owner completed it while this worker judged it in doubt (action %s)",
    async (action) => {
      await claimAndLapse();
      // Worker B reads the lapsed claim as in doubt; while it decides, A (slow, not dead) finishes
      // the call and records it: an owner may complete after its lease as long as nobody took over.
      const b = worker("B", async () => {
        await journal.complete({ runId, key, owner: "A", result: { success: true, output: "sent by A" } });
        return action;
      });
      const got = await claimAndRun(b.options);
      expect(b.runs).toEqual([]);
      expect(got).toEqual({ value: { success: true, output: "sent by A" }, replay: true });
      const record = (await journal.readRun(runId)).records.get(key);
      expect(record).toMatchObject({ status: "completed", owner: "A", result: { output: "sent by A" } });
    },
  );

  it("does not run a call another worker reclaimed while this one judged it in doubt: it parks", async () => {
    await claimAndLapse();
    const b = worker("B", async () => {
      const c = await journal.reclaim({ runId, key, owner: "C", leaseMs: LEASE, attempt: 1 });
      expect(c.state).toBe("claimed");
      return "rerun";
    });
    const err = await claimAndRun(b.options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParkSignal);
    expect(b.runs).toEqual([]);
  });

  it("re-runs an in-doubt call once when nobody completed it, under the next claim attempt", async () => {
    await claimAndLapse();
    const b = worker("B", async () => "rerun");
    const got = await claimAndRun(b.options);
    expect(b.runs).toEqual([2]);
    expect(got).toEqual({ value: { success: true, output: "sent by B" }, replay: false });
    const again = worker("D", async () => "rerun");
    expect(await claimAndRun(again.options)).toMatchObject({ replay: true, value: { output: "sent by B" } });
    expect(again.runs).toEqual([]);
  });

  it("runs a call once when two workers claim it at the same moment", async () => {
    const a = worker("A", async () => "rerun");
    const b = worker("B", async () => "rerun");
    const outcomes = await Promise.allSettled([claimAndRun(a.options), claimAndRun(b.options)]);
    expect(a.runs.length + b.runs.length).toBe(1);
    expect(outcomes.filter((o) => o.status === "rejected").map((o) => o.reason)).toEqual([
      expect.any(ParkSignal),
    ]);
  });
});
