import type { ClaimOutcome, InDoubtAction, Journal } from "../../journal/index.js";
import type { DeferredCompletion } from "./deferred-completion.js";
import { ParkSignal } from "./park-signal.js";
import type { OutboxEntry } from "./ports.js";
import { type RunOutbox, recordWithOutbox } from "./run-outbox.js";

/** What {@link claimAndRun} returns: the (recorded or new) value and whether it was replayed. */
export interface ClaimedValue {
  readonly value: unknown;
  readonly replay: boolean;
}

/** What {@link ClaimAndRunOptions.produce} is told about its claim. */
export interface ClaimInfo {
  /** The journal's claim number of this key: 1 the first time, +1 for each re-run after a crash. */
  readonly attempt: number;
  /** True when an earlier claim died before completing and the call is run again. */
  readonly inDoubtRerun: boolean;
}

/** Options for {@link claimAndRun}. */
export interface ClaimAndRunOptions {
  journal: Journal;
  runId: string;
  key: string;
  owner: string;
  leaseMs: number;
  /** What to do when an earlier attempt claimed the key and died before completing it. */
  onInDoubt: () => InDoubtAction | Promise<InDoubtAction>;
  /** The value recorded instead of running, when the in-doubt action is "fail". */
  inDoubtFailure: () => unknown;
  /** Parks the run for a person's answer when the in-doubt action is "park"; returns when to wake. */
  parkInDoubt: () => Promise<number>;
  /** Whether the person answered the in-doubt question (see ParkSignal.ready). */
  inDoubtReady?: () => Promise<boolean>;
  /**
   * Performs the side effect once; its value is journalled. `claim.attempt` is the journal's claim
   * number (1 the first time); `claim.inDoubtRerun` is true when an earlier claim died before
   * completing and the in-doubt action chose to run the call again.
   */
  produce: (claim: ClaimInfo) => Promise<unknown>;
  /**
   * The run's pending completion: sent together with this claim (one round trip), and, when
   * `deferOwn` is set, this key's own completion is left pending in it for the run's next claim.
   */
  deferred?: DeferredCompletion;
  /** Leave this key's completion pending in `deferred` instead of sending it at once. */
  deferOwn?: boolean;
  /**
   * The run's outbox: the entry `produce` staged for this key is stored with its result, and the
   * claim and completion carry the outbox's acknowledgements (see RunOutbox).
   */
  outbox?: RunOutbox;
  /**
   * The gate decision that lets the call run, for the audit trail: stored with the claim in the
   * journal when the claim takes the key (then delivered through the outbox), otherwise appended
   * directly before anything acts. Requires `outbox`.
   */
  decision?: OutboxEntry;
}

/**
 * The journal's exactly-once protocol for one key: claim atomically, run, complete. A completed key
 * returns its recorded value (a replay: nothing runs); a live claim of another worker parks this run
 * until that claim lapses; an in-doubt key is re-run only when it is safe, otherwise it becomes a
 * person's decision or a recorded failure — never a silent second execution.
 */
export async function claimAndRun(options: ClaimAndRunOptions): Promise<ClaimedValue> {
  const { journal, runId, key, owner, leaseMs } = options;
  let outcome = await claimWithDecision(options);
  for (let round = 0; round < 3; round++) {
    switch (outcome.state) {
      case "completed":
        return { value: outcome.record.result, replay: true };
      case "held":
        throw new ParkSignal(outcome.until + 250, `another worker holds the claim on ${key}`);
      case "claimed":
        return runClaimed(options, outcome.record.attempt);
      case "in_doubt": {
        const action = await options.onInDoubt();
        if (action === "park")
          throw new ParkSignal(
            await options.parkInDoubt(),
            `in doubt: ${key} may have run`,
            options.inDoubtReady,
          );
        const taken = await journal.reclaim({ runId, key, owner, leaseMs, attempt: outcome.record.attempt });
        // The completed-call race: while this worker judged the in-doubt record, its earlier owner
        // may have completed the call (an owner may complete after its lease lapsed as long as nobody
        // took the claim over), or another worker may have reclaimed it. The reclaim's
        // compare-and-swap then answers "completed" or "held", and only a "claimed" answer lets this
        // worker act: the next round replays the recorded result or parks.
        if (taken.state !== "claimed") {
          outcome = taken;
          break;
        }
        if (action === "fail") {
          // The failure is recorded under our claim, so no other worker re-runs the call either.
          const done = await journal.complete({ runId, key, owner, result: options.inDoubtFailure() });
          return { value: done.record.result, replay: false };
        }
        return runClaimed(options, taken.record.attempt);
      }
    }
  }
  throw new ParkSignal(Date.now() + 1000, `the claim on ${key} kept changing hands`);
}

/** Runs the side effect under this worker's claim (`attempt`: the journal's claim number) and records it. */
async function runClaimed(options: ClaimAndRunOptions, attempt: number): Promise<ClaimedValue> {
  const { journal, runId, key, owner, deferred } = options;
  const claim = { attempt, inDoubtRerun: attempt > 1 };
  const value = await withRenewal(options, () => options.produce(claim));
  if (deferred && options.deferOwn) return { value: await deferred.defer(key, value), replay: false };
  const { outbox } = options;
  const entry = outbox?.take(key);
  const done = await recordWithOutbox(outbox, key, entry, (acknowledged) =>
    journal.complete({
      runId,
      key,
      owner,
      result: value,
      ...(entry ? { outbox: entry.text } : {}),
      ...acknowledged,
    }),
  );
  return { value: done.record.result, replay: done.alreadyCompleted };
}

/**
 * Claims the key with the call's decision (see {@link ClaimAndRunOptions.decision}): stored with the
 * claim when it takes the key, else on record in the trail before this returns.
 */
async function claimWithDecision(options: ClaimAndRunOptions): Promise<ClaimOutcome> {
  const { decision, outbox, key } = options;
  if (decision === undefined || outbox === undefined) return claimWithPending(options, undefined);
  let outcome: ClaimOutcome;
  try {
    outcome = await claimWithPending(options, decision.text);
  } catch (err) {
    // Stored or not, nothing runs now; the trail still hears of the decision (at most once).
    await outbox.sendUnrecorded(decision);
    throw err;
  }
  if (outcome.state === "claimed") outbox.send(key, decision, true);
  else await outbox.sendNow(decision);
  return outcome;
}

/**
 * Claims the key (storing `entry` with the claim when it takes it), recording the run's pending
 * completion in the same round trip when there is one.
 */
async function claimWithPending(
  options: ClaimAndRunOptions,
  entry: string | undefined,
): Promise<ClaimOutcome> {
  const { journal, runId, key, owner, leaseMs, deferred, outbox } = options;
  const stored = entry === undefined ? {} : { outbox: entry };
  if (deferred !== undefined) return deferred.claim({ key, leaseMs, ...stored });
  return recordWithOutbox(outbox, key, undefined, (acknowledged) =>
    journal.claim({ runId, key, owner, leaseMs, ...stored, ...acknowledged }),
  );
}

/**
 * Keeps the claim alive while the side effect runs (renewed every third of the lease), so a long
 * call is not taken for a crashed one; a worker that really died stops renewing and its claim lapses
 * within one lease.
 */
async function withRenewal<T>(options: ClaimAndRunOptions, produce: () => Promise<T>): Promise<T> {
  const { journal, runId, key, owner, leaseMs } = options;
  const timer = setInterval(
    () => {
      journal.renew({ runId, key, owner, leaseMs }).catch(() => undefined);
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  try {
    return await produce();
  } finally {
    clearInterval(timer);
  }
}
