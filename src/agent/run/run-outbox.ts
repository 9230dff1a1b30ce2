import type { Journal } from "../../journal/index.js";
import type { AuditSink, OutboxEntry } from "./ports.js";

/**
 * A run's execution audit entries on their way to the audit trail (docs/DESIGN.md §7, docs/BENCHMARKS.md
 * "CPU per tool call"). A call's entry is stored in the run's journal in the same write as its
 * result, and appended to the trail afterwards while the run goes on: the run no longer waits for
 * a second durable write per call, and nothing a SIGKILL leaves behind loses an entry or doubles it.
 *
 * - Killed before the result is recorded: neither is (the call is in doubt, as it always was).
 * - Killed after it, before the append landed: the entry is in the journal; whoever resumes the
 *   run finds it (JournalSnapshot.outbox) and delivers it.
 * - Killed after the append, before the journal heard of it: delivered again, the trail finds the
 *   entry's delivery id among those it appended and writes nothing (AuditTrail.appendOnce).
 *
 * Delivered entries are acknowledged (their journal field deleted) by the run's next journal
 * script, or at the latest when the run ends or parks ({@link settle}). The journal's and the
 * trail's keys sit in different Redis Cluster slots; this is why the two writes are not one script.
 */
export class RunOutbox {
  readonly #audit: AuditSink;
  readonly #journal: Journal;
  readonly #runId: string;
  /** Entries of calls that ran, until the completion recording their result takes them. */
  readonly #staged = new Map<string, OutboxEntry>();
  readonly #inFlight = new Set<Promise<void>>();
  #delivered: string[] = [];
  #failure: { error: unknown } | undefined;

  constructor(audit: AuditSink, journal: Journal, runId: string) {
    this.#audit = audit;
    this.#journal = journal;
    this.#runId = runId;
  }

  /** Holds the entry of a call that just ran until the completion of `key` stores it. */
  stage(key: string, entry: OutboxEntry): void {
    this.#staged.set(key, entry);
  }

  /** The staged entry of `key`, for the completion that records the key's result (no longer staged). */
  take(key: string): OutboxEntry | undefined {
    const entry = this.#staged.get(key);
    this.#staged.delete(key);
    return entry;
  }

  /** The completion that stored `entry` with the result of `key` landed: deliver it, without waiting. */
  send(key: string, entry: OutboxEntry): void {
    const delivery = this.#audit.deliver(entry).then(
      () => {
        this.#delivered.push(key);
      },
      (error: unknown) => {
        // The entry stays in the journal: the run's next attempt delivers it (settle fails this one).
        this.#failure ??= { error };
      },
    );
    this.#inFlight.add(delivery);
    void delivery.finally(() => this.#inFlight.delete(delivery));
  }

  /**
   * The completion that was to store `entry` failed, and may or may not have landed (a refused
   * claim, a lost reply): the call ran, so its entry is appended now, directly. Should the journal
   * hold a copy after all, its later delivery is recognised by the delivery id and writes nothing.
   * Best effort: the caller is already failing with the completion's error.
   */
  async sendUnrecorded(entry: OutboxEntry): Promise<void> {
    await this.#audit.deliver(entry).catch(() => undefined);
  }

  /** Keys delivered since the last call: the next journal script deletes their outbox fields. */
  acknowledgements(): string[] {
    const keys = this.#delivered;
    this.#delivered = [];
    return keys;
  }

  /** Hands acknowledgements back after the journal call carrying them failed. */
  restore(keys: readonly string[]): void {
    this.#delivered.push(...keys);
  }

  /** Waits for every delivery in flight; throws the first that failed. */
  async delivered(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  /**
   * Before the run ends or parks: waits for every delivery, then deletes the fields of those no
   * journal script has acknowledged yet. Throws the first failed delivery (its entry stays in the
   * journal, and the run's next attempt delivers it).
   */
  async settle(): Promise<void> {
    await this.delivered();
    const keys = this.acknowledgements();
    try {
      await this.#journal.acknowledge(this.#runId, keys);
    } catch (err) {
      this.restore(keys);
      throw err;
    }
  }
}

/**
 * Runs a journal write that records the result of `key` (with `entry`, when the call has one, in
 * its outbox field) and carries the outbox's acknowledgements; delivers the entry once it landed.
 * If the write fails, the acknowledgements go back and the entry is appended directly (see
 * {@link RunOutbox.sendUnrecorded}) before the error is rethrown.
 */
export async function recordWithOutbox<T>(
  outbox: RunOutbox | undefined,
  key: string,
  entry: OutboxEntry | undefined,
  write: (acknowledge: readonly string[]) => Promise<T>,
): Promise<T> {
  if (outbox === undefined) return write([]);
  const acknowledge = outbox.acknowledgements();
  let written: T;
  try {
    written = await write(acknowledge);
  } catch (err) {
    outbox.restore(acknowledge);
    if (entry !== undefined) await outbox.sendUnrecorded(entry);
    throw err;
  }
  if (entry !== undefined) outbox.send(key, entry);
  return written;
}
