import {
  type ClaimInput,
  type ClaimOutcome,
  encodeJournalResult,
  type Journal,
} from "../../journal/index.js";
import type { OutboxEntry } from "./ports.js";
import { type RunOutbox, recordWithOutbox } from "./run-outbox.js";

interface Pending {
  key: string;
  result: unknown;
  resultJson: string;
  /** The call's execution audit entry, stored with its result (see RunOutbox). */
  entry: OutboxEntry | undefined;
}

/**
 * A journal completion the run has not sent yet, so that it rides with the run's next claim
 * (Journal.completeThenClaim): one round trip ends a step and starts the next one, instead of two.
 *
 * What makes the delay safe: a value is deferred only while nothing acts on it. The next claim (or
 * {@link flush}) records it before the claimed call runs, before a run parks, asks a person or
 * starts a child, and before the run returns; if the process dies before that, the key is a claim
 * without a result (in doubt), which is what it would have been had it died just before completing.
 * The model steps and side-effect-free results deferred here are re-run from in doubt; a tool call
 * that acted is never deferred past the next claim, which is sent at once after it.
 */
export class DeferredCompletion {
  readonly #journal: Journal;
  readonly #runId: string;
  readonly #owner: string;
  readonly #outbox: RunOutbox | undefined;
  #pending: Pending | undefined;

  constructor(journal: Journal, runId: string, owner: string, outbox?: RunOutbox) {
    this.#journal = journal;
    this.#runId = runId;
    this.#owner = owner;
    this.#outbox = outbox;
  }

  /**
   * Holds `result` for `key` (claimed by this owner) until the next claim or flush, and returns it
   * as the journal will replay it (canonical JSON, parsed). An earlier pending value is sent first.
   * The call's staged outbox entry, if any, goes with it.
   */
  async defer(key: string, result: unknown): Promise<unknown> {
    await this.flush();
    const encoded = encodeJournalResult(this.#runId, key, result);
    this.#pending = { key, result: encoded.value, resultJson: encoded.json, entry: this.#outbox?.take(key) };
    return encoded.value;
  }

  /**
   * Claims `input.key` for this run (storing `input.outbox` with the claim when it takes it),
   * recording the pending completion (its result as canonical JSON, its outbox entry) and the
   * outbox's acknowledgements in the same round trip.
   */
  async claim(
    input: Omit<ClaimInput, "runId" | "owner" | "acknowledge" | "acknowledgeClaims">,
  ): Promise<ClaimOutcome> {
    const pending = this.#pending;
    this.#pending = undefined;
    const claim = { ...input, runId: this.#runId, owner: this.#owner };
    if (pending === undefined) {
      return recordWithOutbox(this.#outbox, input.key, undefined, (acknowledged) =>
        this.#journal.claim({ ...claim, ...acknowledged }),
      );
    }
    const { claimed } = await recordWithOutbox(this.#outbox, pending.key, pending.entry, (acknowledged) =>
      this.#journal.completeThenClaim({
        ...claim,
        ...acknowledged,
        complete: {
          key: pending.key,
          result: pending.result,
          resultJson: pending.resultJson,
          ...(pending.entry ? { outbox: pending.entry.text } : {}),
        },
      }),
    );
    return claimed;
  }

  /** Records the pending completion now, if any (before anything acts on it). */
  async flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    await recordWithOutbox(this.#outbox, pending.key, pending.entry, (acknowledged) =>
      this.#journal.complete({
        runId: this.#runId,
        key: pending.key,
        owner: this.#owner,
        result: pending.result,
        ...(pending.entry ? { outbox: pending.entry.text } : {}),
        ...acknowledged,
      }),
    );
  }
}
