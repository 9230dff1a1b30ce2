import { encodeJournalResult, type Journal } from "../../journal/index.js";

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
  #pending: { key: string; result: unknown; resultJson: string } | undefined;

  constructor(journal: Journal, runId: string, owner: string) {
    this.#journal = journal;
    this.#runId = runId;
    this.#owner = owner;
  }

  /**
   * Holds `result` for `key` (claimed by this owner) until the next claim or flush, and returns it
   * as the journal will replay it (canonical JSON, parsed). An earlier pending value is sent first.
   */
  async defer(key: string, result: unknown): Promise<unknown> {
    await this.flush();
    const encoded = encodeJournalResult(this.#runId, key, result);
    this.#pending = { key, result: encoded.value, resultJson: encoded.json };
    return encoded.value;
  }

  /**
   * The pending completion, handed to a claim that records it (it is no longer pending here):
   * `resultJson` is its canonical JSON, `result` that JSON parsed, so the claim encodes nothing.
   */
  take(): { key: string; result: unknown; resultJson: string } | undefined {
    const pending = this.#pending;
    this.#pending = undefined;
    return pending;
  }

  /** Records the pending completion now, if any (before anything acts on it). */
  async flush(): Promise<void> {
    const pending = this.take();
    if (pending === undefined) return;
    await this.#journal.complete({
      runId: this.#runId,
      key: pending.key,
      owner: this.#owner,
      result: pending.result,
    });
  }
}
